// read_fiber_object (tmk/host/fiber_object.hpp) on a program built by ncp2-cc, one built without
// the fiber object, and files that are not programs: missing, not ELF, truncated, corrupt.
#include "tmk/host/fiber_object.hpp"

#include <cstdint>
#include <cstring>

#include "tests/carnival/temp_dir.hpp"
#include "tests/tmk/fiber_object_support.hpp"
#include "tmk/fiber_abi.hpp"

namespace ncp2::tmk {
namespace {

using testing::load_copy;
using testing::ncp2_cc;
using testing::probe_source;

class FiberObjectTest : public carnival::testing::TempDirTest {
 protected:
  std::string build(const std::string& name, const std::vector<std::string>& options = {}) {
    std::vector<std::string> arguments = options;
    arguments.insert(arguments.end(), {"-O1", "-o", path(name), probe_source()});
    const auto built = ncp2_cc(arguments);
    EXPECT_EQ(built.exit_code, 0) << built.output;
    EXPECT_EQ(built.output, "") << "a warning where none was expected";
    return path(name);
  }
  void expect_error(const std::string& file, const std::string& words) {
    const FiberObject object = read_fiber_object(file);
    EXPECT_FALSE(object.found());
    EXPECT_TRUE(object.bytes.empty());
    EXPECT_NE(object.error.find(file), std::string::npos) << object.error;
    EXPECT_NE(object.error.find(words), std::string::npos) << object.error;
  }
};

TEST_F(FiberObjectTest, AProgramBuiltByNcp2CcCarriesALoadableSharedObject) {
  const FiberObject object = read_fiber_object(build("prog"));
  ASSERT_TRUE(object.found()) << object.error;
  testing::write_bytes(path("copy.so"), object.bytes);
  const testing::Loaded copy = load_copy(path("copy.so"));
  ASSERT_TRUE(copy);
  EXPECT_NE(dlsym(copy.get(), "main"), nullptr);
  EXPECT_NE(dlsym(copy.get(), kFiberMainSymbol), nullptr);
  EXPECT_NE(dlsym(copy.get(), "probe_line"), nullptr);
}

// Each node's copy holds only what the loader reads: its loadable segments, not the debugging
// information (built with -g, the object is several times that), and still loads.
TEST_F(FiberObjectTest, ACopyNeedsOnlyTheLoadableBytes) {
  const FiberObject object = read_fiber_object(build("prog"));
  ASSERT_TRUE(object.found()) << object.error;
  EXPECT_GT(object.loaded_bytes, 0U);
  EXPECT_LT(object.loaded_bytes, object.bytes.size());
  const std::vector<std::byte> loadable(
      object.bytes.begin(), object.bytes.begin() + static_cast<std::ptrdiff_t>(object.loaded_bytes));
  testing::write_bytes(path("loadable.so"), loadable);
  const testing::Loaded copy = load_copy(path("loadable.so"));
  ASSERT_TRUE(copy);
  EXPECT_NE(dlsym(copy.get(), kFiberMainSymbol), nullptr);
}

TEST_F(FiberObjectTest, AProgramBuiltWithoutItSaysHowToRebuild) {
  expect_error(build("prog", {"--ncp2-no-fiber"}), "built without the fiber runner's object (rebuild it");
}

TEST_F(FiberObjectTest, AMissingFile) { expect_error(path("nothing-here"), "no such file"); }

TEST_F(FiberObjectTest, FilesThatAreNotExecutables) {
  spit(path("script"), "#!/bin/sh\necho hello\n");
  expect_error(path("script"), "not an ELF executable");
  spit(path("empty"), "");
  expect_error(path("empty"), "not an ELF executable");
  const auto compiled = ncp2_cc({"-c", "-o", path("probe.o"), probe_source()});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  expect_error(path("probe.o"), "not an ELF executable");
}

TEST_F(FiberObjectTest, TruncatedProgramsAreMessages) {
  const std::string whole = slurp(build("prog"));
  ASSERT_GT(whole.size(), 4096U);
  for (const std::size_t size : {std::size_t{4}, std::size_t{40}, std::size_t{64}, whole.size() / 3,
                                 whole.size() / 2, whole.size() - 1}) {
    SCOPED_TRACE(size);
    spit(path("cut"), whole.substr(0, size));
    const FiberObject object = read_fiber_object(path("cut"));
    EXPECT_FALSE(object.found());
    EXPECT_NE(object.error.find(path("cut")), std::string::npos) << object.error;
  }
}

// The ELF64 fields the corruptions below change (the ELF specification's offsets).
template <typename T>
T field(const std::string& file, std::size_t offset) {
  T value{};
  std::memcpy(&value, file.data() + offset, sizeof value);
  return value;
}
template <typename T>
void set_field(std::string& file, std::size_t offset, T value) {
  std::memcpy(file.data() + offset, &value, sizeof value);
}
constexpr std::size_t kShoff = 0x28, kShentsize = 0x3a, kShnum = 0x3c, kShstrndx = 0x3e;
constexpr std::size_t kShName = 0, kShFlags = 8, kShOffset = 24, kShSize = 32;

// Where the header of the section named `name` is in `file`.
std::size_t section_header(const std::string& file, const char* name) {
  const auto table = field<std::uint64_t>(file, kShoff);
  const std::size_t entry = field<std::uint16_t>(file, kShentsize);
  const std::size_t names = table + entry * field<std::uint16_t>(file, kShstrndx);
  for (std::size_t i = 0; i < field<std::uint16_t>(file, kShnum); ++i) {
    const std::size_t header = table + i * entry;
    const char* text = file.data() + field<std::uint64_t>(file, names + kShOffset) +
                       field<std::uint32_t>(file, header + kShName);
    if (std::strcmp(text, name) == 0) return header;
  }
  return 0;
}

TEST_F(FiberObjectTest, CorruptProgramsAreMessages) {
  const std::string whole = slurp(build("prog"));
  const std::size_t header = section_header(whole, kFiberSection);
  ASSERT_NE(header, 0U);
  EXPECT_EQ(field<std::uint64_t>(whole, header + kShFlags) & 0x2 /* SHF_ALLOC */, 0U)
      << "loaded with the program";

  std::string corrupt = whole;
  set_field<std::uint64_t>(corrupt, header + kShSize, ~std::uint64_t{0} - 8);
  spit(path("corrupt"), corrupt);
  expect_error(path("corrupt"), "outside the file");

  corrupt = whole;
  set_field<std::uint64_t>(corrupt, header + kShOffset, whole.size() - 2);
  spit(path("corrupt"), corrupt);
  expect_error(path("corrupt"), "outside the file");

  corrupt = whole;
  set_field<std::uint64_t>(corrupt, kShoff, ~std::uint64_t{0} - 4096);
  spit(path("corrupt"), corrupt);
  EXPECT_FALSE(read_fiber_object(path("corrupt")).found());

  corrupt = whole;
  set_field<std::uint16_t>(corrupt, kShstrndx, 0xfffe);
  spit(path("corrupt"), corrupt);
  EXPECT_FALSE(read_fiber_object(path("corrupt")).found());
}

}  // namespace
}  // namespace ncp2::tmk
