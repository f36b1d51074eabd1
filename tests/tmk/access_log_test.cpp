#include "tmk/host/access_log.hpp"

#include <cstring>

#include <gtest/gtest.h>

#include "dsm/runtime.hpp"

namespace ncp2::tmk {
namespace {

constexpr std::size_t kPage = 4096;

// What the runtime does for an access (tmk/runtime/tmk_runtime.cpp record), one page at a time.
void record(AccessLog& log, std::uint32_t page, std::size_t offset, std::size_t bytes, bool write,
            std::uint64_t pc) {
  const AccessLogLayout& l = log.layout();
  auto* header = reinterpret_cast<AccessLogHeader*>(log.data());
  auto* touched = reinterpret_cast<std::uint32_t*>(log.data() + l.touched_at);
  auto* sites = reinterpret_cast<AccessSites*>(log.data() + l.sites_at);
  auto* bits =
      reinterpret_cast<std::uint64_t*>(log.data() + l.bits_at) + (page * 2 + (write ? 1 : 0)) * l.words;
  if (!page_touched(sites[page])) touched[header->touched++] = page;
  note_access_site(write ? sites[page].write : sites[page].read, pc, static_cast<std::uint32_t>(offset),
                   static_cast<std::uint32_t>(offset + bytes - 1));
  for (std::size_t b = offset; b < offset + bytes; ++b) bits[b / 64] |= std::uint64_t{1} << (b % 64);
}

TEST(AccessLog, LayoutCoversTheHeap) {
  const AccessLogLayout l = access_log_layout(std::size_t{64} << 20, kPage);
  EXPECT_EQ(l.pages, 16384u);
  EXPECT_EQ(l.words, 64u);
  EXPECT_GE(l.sites_at, l.touched_at + l.pages * 4);
  EXPECT_GE(l.bits_at, l.sites_at + l.pages * sizeof(AccessSites));
  EXPECT_EQ(l.total_bytes, l.bits_at + l.pages * 2 * 64 * 8);
  EXPECT_EQ(l.total_bytes % 4096, 0u);
}

TEST(AccessLog, WritesOfTwoNodesToTheSameBytesRace) {
  AccessLog a(16 * kPage, kPage);
  AccessLog b(16 * kPage, kPage);
  dsm::RaceDetector detector(2, kPage);
  record(a, 3, 100, 4, true, 0x1111);
  record(a, 3, 200, 8, false, 0x2222);
  record(b, 3, 102, 2, true, 0x3333);
  record(b, 5, 0, 8, false, 0x4444);
  EXPECT_EQ(a.touched(), 1u);
  EXPECT_EQ(b.touched(), 2u);
  a.merge_into(detector, emu::node_id(0), 10, 7);
  b.merge_into(detector, emu::node_id(1), 10, 8);
  EXPECT_EQ(a.touched(), 0u);
  EXPECT_EQ(b.touched(), 0u);
  detector.finish();
  ASSERT_EQ(detector.races().size(), 1u);
  const auto& race = detector.races().front();
  EXPECT_EQ(dsm::raw(race.page), 13u);
  EXPECT_EQ(race.offset, 102u);
  EXPECT_TRUE(race.first.writes && race.second.writes);
  EXPECT_EQ(race.first.site, (dsm::AccessSite{0x1111, 0, 7}));
  EXPECT_EQ(race.second.site, (dsm::AccessSite{0x3333, 0, 8}));
}

// Node 0 writes a struct's id (bytes 0..3) and count (4..7) from two places, then words from more
// places than the log has slots for; node 1 writes byte `racing`: the place blamed for node 0.
std::uint64_t blamed_for(std::uint32_t racing) {
  AccessLog a(4 * kPage, kPage);
  AccessLog b(4 * kPage, kPage);
  dsm::RaceDetector detector(2, kPage);
  record(a, 1, 0, 4, true, 0xa0);
  record(a, 1, 4, 4, true, 0xa1);
  record(a, 1, 0, 4, true, 0xa0);
  for (std::uint64_t pc = 0xb0; pc < 0xb0 + kAccessSitesPerKind; ++pc)
    record(a, 1, 64 + (pc - 0xb0) * 8, 8, true, pc);
  record(b, 1, racing, 1, true, 0xc0);
  a.merge_into(detector, emu::node_id(0), 0, 0);
  b.merge_into(detector, emu::node_id(1), 0, 0);
  detector.finish();
  if (detector.races().size() != 1) return 0;
  EXPECT_EQ(detector.races()[0].second.site.where, 0xc0u);
  return detector.races()[0].first.site.where;
}

TEST(AccessLog, TheRaceNamesThePlaceThatTouchedTheRacingByte) {
  EXPECT_EQ(blamed_for(5), 0xa1u);
  EXPECT_EQ(blamed_for(2), 0xa0u);
  EXPECT_EQ(blamed_for(64 + 8), 0xb1u);
  // The log has room for kAccessSitesPerKind places: the last loop's place was left out.
  EXPECT_EQ(blamed_for(64 + (kAccessSitesPerKind - 1) * 8), 0xa0u);
}

TEST(AccessLog, MergingClearsTheLog) {
  AccessLog log(4 * kPage, kPage);
  dsm::RaceDetector detector(2, kPage);
  record(log, 2, 0, kPage, true, 0x10);
  log.merge_into(detector, emu::node_id(0), 0, 0);
  const AccessLogLayout& l = log.layout();
  const std::byte* bits = log.data() + l.bits_at;
  for (std::size_t i = 0; i < l.pages * 2 * l.words * 8; ++i) ASSERT_EQ(bits[i], std::byte{0});
  const auto* sites = reinterpret_cast<const AccessSites*>(log.data() + l.sites_at);
  EXPECT_EQ(sites[2].write[0].pc, 0u);
  // Reads of the other node in a later, ordered segment: no race.
  detector.barrier_arrive(emu::node_id(0));
  detector.barrier_arrive(emu::node_id(1));
  detector.barrier_depart(emu::node_id(0));
  detector.barrier_depart(emu::node_id(1));
  record(log, 2, 0, 8, false, 0x20);
  log.merge_into(detector, emu::node_id(1), 0, 0);
  detector.finish();
  EXPECT_TRUE(detector.races().empty());
}

TEST(AccessLog, ADamagedLogIsAnErrorNotACrash) {
  AccessLog log(4 * kPage, kPage);
  dsm::RaceDetector detector(1, kPage);
  auto* header = reinterpret_cast<AccessLogHeader*>(log.data());
  auto* touched = reinterpret_cast<std::uint32_t*>(log.data() + log.layout().touched_at);
  header->touched = 1;
  touched[0] = 99;
  EXPECT_THROW(log.merge_into(detector, emu::node_id(0), 0, 0), dsm::DsmError);
  header->touched = 1000;
  EXPECT_THROW(log.merge_into(detector, emu::node_id(0), 0, 0), dsm::DsmError);
}

TEST(AccessLog, AProgramWithoutTheMarkerIsNotBuiltForRaceChecks) {
  EXPECT_FALSE(built_with_race_checks("/bin/true"));
  EXPECT_FALSE(built_with_race_checks("/nonexistent"));
  EXPECT_EQ(without_race_checks_message("./p"),
            "./p was built without access checks, so its data races cannot be found: rebuild it with ncp2-cc "
            "--ncp2-races");
}

}  // namespace
}  // namespace ncp2::tmk
