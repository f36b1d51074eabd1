// What a kept calibration is keyed by (validation/host_identity.hpp): the CPU model read from
// /proc/cpuinfo, the hash of a file's content (the same in chunks as at once, changed by one
// byte), the GNU build ID of an ELF executable, and the build's identity built from them.
#include <string>

#include <gtest/gtest.h>

#include "tests/carnival/temp_dir.hpp"
#include "validation/host_identity.hpp"

namespace ncp2::validation {
namespace {

class HostIdentityTest : public carnival::testing::TempDirTest {};

TEST(CpuModel, TheFirstModelNameOfCpuinfo) {
  EXPECT_EQ(cpu_model_of("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n"
                         "model name\t: Intel(R) Xeon(R) CPU @ 2.00GHz \nprocessor\t: 1\n"
                         "model name\t: another\n"),
            "Intel(R) Xeon(R) CPU @ 2.00GHz");
  EXPECT_EQ(cpu_model_of("processor : 0\nHardware : BCM2835\n"), "BCM2835");
  EXPECT_EQ(cpu_model_of("processor : 0\nmodel name:\n"), "unknown");
  EXPECT_EQ(cpu_model_of(""), "unknown");
  EXPECT_FALSE(this_host().name.empty());
  EXPECT_GT(this_host().cpus, 0);
}

TEST_F(HostIdentityTest, FileHashIsTheHashOfItsBytesAndSeesOneByte) {
  // Across the 1 MB chunk and not a multiple of the 32-byte block.
  std::string bytes(3 * (1 << 20) + 45, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131) ^ (i >> 9));
  spit(path("a"), bytes);
  ASSERT_TRUE(hash_file(path("a")));
  EXPECT_EQ(*hash_file(path("a")), hash_bytes(bytes));
  for (const std::size_t at : {std::size_t{0}, std::size_t{1 << 20}, bytes.size() - 1}) {
    std::string changed = bytes;
    changed[at] = static_cast<char>(changed[at] ^ 1);
    EXPECT_NE(hash_bytes(changed), hash_bytes(bytes)) << at;
  }
  EXPECT_NE(hash_bytes(bytes.substr(0, bytes.size() - 1)), hash_bytes(bytes));
  EXPECT_NE(hash_bytes(""), hash_bytes(std::string(1, '\0')));
  EXPECT_FALSE(hash_file(path("missing")));
}

TEST_F(HostIdentityTest, BuildIdOfAnElfExecutableElseItsContent) {
  // This test's own executable, linked like ncp2 (GNU ld and lld write a build ID by default here).
  const auto id = gnu_build_id("/proc/self/exe");
  ASSERT_TRUE(id) << "the test binary has no .note.gnu.build-id";
  EXPECT_GE(id->size(), 16U);
  EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos) << *id;
  spit(path("script"), "#!/bin/sh\necho one\n");
  EXPECT_FALSE(gnu_build_id(path("script")));
  spit(path("truncated-elf"),
       "\x7f"
       "ELF\x02\x01\x01");
  EXPECT_FALSE(gnu_build_id(path("truncated-elf")));

  const std::string first = build_identity({"/proc/self/exe", path("script")});
  EXPECT_EQ(first.rfind("exe=build-id:" + *id + ";script=content:", 0), 0U) << first;
  EXPECT_EQ(build_identity({"/proc/self/exe", path("script")}), first);
  spit(path("script"), "#!/bin/sh\necho two\n");
  EXPECT_NE(build_identity({"/proc/self/exe", path("script")}), first);
  EXPECT_THROW((void)build_identity({path("missing")}), std::runtime_error);
}

}  // namespace
}  // namespace ncp2::validation
