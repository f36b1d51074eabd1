#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "emulator/time.hpp"

namespace ncp2::emu {
namespace {
using namespace literals;

TEST(Time, UnitsAreExactPicoseconds) {
  EXPECT_EQ(to_ps(1_ns), 1'000);
  EXPECT_EQ(to_ps(3_us), 3'000'000);
  EXPECT_EQ(to_ps(2_ms), 2'000'000'000);
  EXPECT_EQ(to_ps(kTimeZero + 5_us), 5'000'000);
}

TEST(Time, TransferTimeIsBytesOverBandwidth) {
  // 1.28 Gbit/s = 160e6 B/s: one byte takes 6.25 ns exactly.
  EXPECT_EQ(to_ps(transfer_time(1, 160e6)), 6'250);
  EXPECT_EQ(to_ps(transfer_time(4096, 160e6)), 25'600'000);
  EXPECT_EQ(to_ps(transfer_time(0, 160e6)), 0);
}

TEST(Time, TransferTimeRoundsUpNonIntegralPicoseconds) {
  // 1 byte at 3e12 B/s is 0.333 ps: never free, so it costs 1 ps.
  EXPECT_EQ(to_ps(transfer_time(1, 3e12)), 1);
  // 64 bytes at 132e6 B/s = 484848.48 ps -> 484849 ps.
  EXPECT_EQ(to_ps(transfer_time(64, 132e6)), 484'849);
}

TEST(Time, TransferTimeIsTheExactCeilingForIntegralBandwidths) {
  // Against the plain 128-bit ceiling division, over many sizes and the default bandwidths.
  __extension__ using U128 = unsigned __int128;
  for (double bw : {160e6, 132e6, 533e6, 100e6, 12.5e6, 1e9, 7.0, 999'999'937.0}) {
    for (std::int64_t bytes = 1; bytes < 70'000; bytes = bytes * 3 / 2 + 1) {
      const U128 num = static_cast<U128>(bytes) * 1'000'000'000'000ULL;
      const auto b = static_cast<U128>(static_cast<std::int64_t>(bw));
      EXPECT_EQ(to_ps(transfer_time(bytes, bw)), static_cast<std::int64_t>((num + b - 1) / b))
          << bytes << " B at " << bw;
    }
  }
}

TEST(Time, TransferTimeIsExactOnBothSidesOfThe64BitLimit) {
  // Up to 18,446,744 bytes the picosecond numerator fits in 64 bits (one hardware division);
  // above, the 128-bit path. Both must give the exact ceiling.
  __extension__ using U128 = unsigned __int128;
  for (double bw : {160e6, 132e6, 7.0, 999'999'937.0}) {
    for (std::int64_t bytes : {std::int64_t{18'446'743}, std::int64_t{18'446'744}, std::int64_t{18'446'745},
                               std::int64_t{1'000'000'007}, std::int64_t{4'000'000'000'000}}) {
      const U128 num = static_cast<U128>(bytes) * 1'000'000'000'000ULL;
      const auto b = static_cast<U128>(static_cast<std::int64_t>(bw));
      const U128 expected = (num + b - 1) / b;
      if (expected > static_cast<U128>(std::numeric_limits<std::int64_t>::max()))
        continue;  // beyond a Duration
      EXPECT_EQ(to_ps(transfer_time(bytes, bw)), static_cast<std::int64_t>(expected))
          << bytes << " B at " << bw;
    }
  }
}

TEST(Time, CyclesAtClock) {
  EXPECT_EQ(to_ps(cycles_at(400, 100.0)), 4'000'000);  // 400 cycles at 100 MHz = 4 us
  EXPECT_EQ(to_ps(cycles_at(1, 66.0)), 15'152);
}

TEST(Time, FormatChoosesUnitByMagnitude) {
  EXPECT_EQ(format_duration(0_ps), "0 s");
  EXPECT_EQ(format_duration(500_ps), "500 ps");
  EXPECT_EQ(format_duration(4_us), "4 us");
  EXPECT_EQ(format_duration(1500_ns), "1.5 us");
  EXPECT_EQ(format_duration(2_ms), "2 ms");
  EXPECT_EQ(format_duration(1234567_ps), "1.234567 us");
  EXPECT_EQ(format_duration(1000001_ns), "1.000001 ms");
  EXPECT_EQ(format_duration(-1500_ns), "-1.5 us");
}

}  // namespace
}  // namespace ncp2::emu
