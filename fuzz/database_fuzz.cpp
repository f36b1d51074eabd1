// Fuzz target: reading a run database as `ncp2 report FILE` does (carnival::read_run, then every
// view in every format). The input is the file. A damaged or foreign file must be refused with
// carnival::StoreError (the documented messages), never crash, hang or throw anything else; a
// file that reads must render.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "carnival/report.hpp"
#include "carnival/store.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

// The input as a file of its own (SQLite reads files), one per process; removed at exit.
class InputFile {
 public:
  InputFile() : path_(fmt::format("/tmp/ncp2-fuzz-database-{}.db", ::getpid())) {}
  ~InputFile() { std::remove(path_.c_str()); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    ncp2::fuzz::check(f != nullptr, "cannot write the input file");
    const bool ok = std::fwrite(data, 1, size, f) == size;
    ncp2::fuzz::check(std::fclose(f) == 0 && ok, "cannot write the input file");
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ncp2::carnival;
  static const InputFile file;
  RunData run;
  try {
    run = read_run(file.write(data, size));
  } catch (const StoreError&) {
    return 0;
  }
  for (const auto format :
       {ReportFormat::Text, ReportFormat::Markdown, ReportFormat::Csv, ReportFormat::Json}) {
    ReportOptions options;
    options.format = format;
    options.top = 0;  // every row
    render_report(run, options);
  }
  return 0;
}
