// Fuzz target: reading a run database as `ncp2 report FILE` does (carnival::read_run, then every
// view in every format), and as `ncp2 compare FILE FILE` does (carnival::read_compared_run, the
// comparison in every format). The input is the file. A damaged or foreign file must be refused with
// carnival::StoreError (the documented messages), never crash, hang or throw anything else; a
// file that reads must render.
#include <cstddef>
#include <cstdint>
#include <string>

#include "carnival/compare.hpp"
#include "carnival/report.hpp"
#include "carnival/run_reader.hpp"
#include "fuzz/fuzz_check.hpp"
#include "fuzz/input_file.hpp"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ncp2::carnival;
  static const ncp2::fuzz::InputFile file("database");
  const std::string& path = file.write(data, size);
  RunData run;
  try {
    run = read_run(path);
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
  // The comparison's lighter reader: the same messages for what it refuses, else every format.
  ComparedRun compared;
  try {
    compared = read_compared_run(path);
  } catch (const StoreError&) {
    return 0;
  }
  const Comparison comparison = compare_runs(compared, compared);
  for (const auto format : {CompareFormat::Text, CompareFormat::Csv, CompareFormat::Json})
    render_comparison(comparison, format);
  return 0;
}
