// libncp2tmk_fiber's per-copy state (tmk/runtime/fiber_libc.cpp), outside the fiber runner: two
// copies of a program's fiber object loaded at once each draw the pseudo-random sequences a fresh
// process draws (computed by running the program), whatever the other copy and the test process
// draw, and keep their own strtok. fiber::active() is false here: the wrappers of exit, signals and
// threads only pass through (the fiber runner's tests check what they do in a fiber).
#include <algorithm>
#include <array>
#include <cstdlib>

#include "tests/carnival/temp_dir.hpp"
#include "tests/tmk/fiber_object_support.hpp"

namespace ncp2::tmk {
namespace {

using testing::ncp2_cc;
using testing::probe_source;

// A loaded copy and the probe functions of tests/tmk/fiber_libc_probe.c in it.
struct Copy {
  testing::Loaded loaded;
  void (*seed)(long) = nullptr;
  void (*line)(char*, std::size_t) = nullptr;
  const char* (*strtok)(char*, const char*) = nullptr;

  explicit Copy(const std::string& file) : loaded(testing::load_copy(file)) {
    if (!loaded) return;
    seed = reinterpret_cast<decltype(seed)>(dlsym(loaded.get(), "probe_seed"));
    line = reinterpret_cast<decltype(line)>(dlsym(loaded.get(), "probe_line"));
    strtok = reinterpret_cast<decltype(strtok)>(dlsym(loaded.get(), "probe_strtok"));
  }
  [[nodiscard]] bool usable() const { return seed && line && strtok; }
  std::string lines(int count) const {
    std::string out;
    for (int i = 0; i < count; ++i) {
      std::array<char, 160> text{};
      line(text.data(), text.size());
      out += text.data();
    }
    return out;
  }
};

class FiberLibcTest : public carnival::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const auto built = ncp2_cc({"-O1", "-o", path("probe"), probe_source()});
    ASSERT_EQ(built.exit_code, 0) << built.output;
    const FiberObject object = read_fiber_object(path("probe"));
    ASSERT_TRUE(object.found()) << object.error;
    // Two files: dlopen of one file twice would give the same copy.
    testing::write_bytes(path("node0.so"), object.bytes);
    testing::write_bytes(path("node1.so"), object.bytes);
    // The test process's own libc state moves too: the copies must not follow it.
    std::srand(12345);
    (void)std::rand();
  }
  // What a fresh process of the program draws: `lines` lines, seeded with `seed` (0: unseeded).
  std::string fresh_process(long seed, int lines) {
    const auto run = real::run_command({path("probe"), std::to_string(seed), std::to_string(lines)});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), lines) << run.output;
    return run.output;
  }
};

TEST_F(FiberLibcTest, UnseededCopiesDrawAsAFreshProcessEach) {
  const Copy a(path("node0.so"));
  const Copy b(path("node1.so"));
  ASSERT_TRUE(a.usable() && b.usable());
  std::string drawn_a = a.lines(3);
  const std::string drawn_b = b.lines(12);
  drawn_a += a.lines(9);
  const std::string expected = fresh_process(0, 12);
  EXPECT_EQ(drawn_a, expected);
  EXPECT_EQ(drawn_b, expected);
}

TEST_F(FiberLibcTest, SeededCopiesDrawAsAFreshProcessSeededAlike) {
  const Copy a(path("node0.so"));
  const Copy b(path("node1.so"));
  ASSERT_TRUE(a.usable() && b.usable());
  a.seed(7);
  std::string drawn_a = a.lines(2);
  b.seed(99);
  std::string drawn_b = b.lines(5);
  drawn_a += a.lines(6);
  drawn_b += b.lines(3);
  EXPECT_EQ(drawn_a, fresh_process(7, 8));
  EXPECT_EQ(drawn_b, fresh_process(99, 8));
  EXPECT_NE(drawn_a.substr(0, 40), drawn_b.substr(0, 40));
}

TEST_F(FiberLibcTest, EachCopyKeepsItsOwnStrtok) {
  const Copy a(path("node0.so"));
  const Copy b(path("node1.so"));
  ASSERT_TRUE(a.usable() && b.usable());
  std::string text_a = "a,b,c";  // strtok writes into its text
  std::string text_b = "x;y";
  EXPECT_STREQ(a.strtok(text_a.data(), ","), "a");
  EXPECT_STREQ(b.strtok(text_b.data(), ";"), "x");
  EXPECT_STREQ(a.strtok(nullptr, ","), "b");
  EXPECT_STREQ(b.strtok(nullptr, ";"), "y");
  EXPECT_STREQ(a.strtok(nullptr, ","), "c");
  EXPECT_EQ(b.strtok(nullptr, ";"), nullptr);
  EXPECT_EQ(a.strtok(nullptr, ","), nullptr);
}

}  // namespace
}  // namespace ncp2::tmk
