// The calibration `ncp2 validate` keeps (validation/calibration_cache.hpp), with a stubbed
// calibrator (no real processes): made when missing, reused when it matches, made again when the
// host, the build, the format, the node count, the launch or the rounds differ, when asked, and
// when its preset or its record cannot be read — which is said, naming the file.
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dsm/config.hpp"
#include "tests/carnival/temp_dir.hpp"
#include "validation/calibration_cache.hpp"

namespace ncp2::validation {
namespace {

bool has(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

class CalibrationCacheTest : public carnival::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    request.dir = path("cache");
    ASSERT_FALSE(cache_dir_problem(request.dir));
    request.calibrate.nodes = 2;
    request.calibrate.rounds = 3;
    request.host = {"vm", "Test CPU @ 2.0GHz", 2};
    request.build = "ncp2=build-id:aa;ncp2-node=build-id:bb";
  }

  // A complete preset, told apart by a comment naming the calibration that made it.
  Calibrator stub() {
    return [this](const CalibrateOptions& o) {
      made.push_back(o);
      return fmt::format("# stub calibration {}\n", made.size()) +
             dsm::to_toml(dsm::default_config(emu::MachineKind::TreadMarks));
    };
  }

  UsedCalibration get() {
    said.clear();
    warned.clear();
    const CacheMessages m{[this](const std::string& l) { said.push_back(l); },
                          [this](const std::string& l) { warned.push_back(l); }};
    return cached_calibration(request, stub(), m);
  }

  std::string toml() const { return path("cache/vm-2n.toml"); }
  std::string record() const { return path("cache/vm-2n.json"); }

  // The kept record with `change` applied.
  void edit_record(const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = nlohmann::json::parse(slurp(record()));
    change(j);
    spit(record(), j.dump(2));
  }

  // Made again: one calibration more, said with `why`, and reused the next time.
  void expect_made_again(const std::string& why) {
    const std::size_t before = made.size();
    const UsedCalibration u = get();
    EXPECT_EQ(made.size(), before + 1) << why;
    EXPECT_FALSE(u.reused);
    EXPECT_TRUE(has(said, why)) << said.front();
    EXPECT_EQ(get().reused, true) << "the new calibration is kept";
    EXPECT_EQ(made.size(), before + 1);
  }

  CacheRequest request;
  std::vector<CalibrateOptions> made;
  std::vector<std::string> said, warned;
};

TEST_F(CalibrationCacheTest, MadeWhenMissingThenReused) {
  const UsedCalibration first = get();
  ASSERT_EQ(made.size(), 1U);
  EXPECT_EQ(made[0].nodes, 2);
  EXPECT_EQ(made[0].rounds, 3);
  EXPECT_FALSE(first.reused);
  EXPECT_EQ(first.path, toml());
  EXPECT_EQ(first.host, "vm");
  EXPECT_EQ(first.rounds, 3);
  EXPECT_TRUE(has(said, "none is kept for this host and node count")) << said.front();
  EXPECT_TRUE(has(said, "to keep in " + toml())) << said.front();
  EXPECT_TRUE(has(said, "calibration: made " + toml())) << said.back();
  EXPECT_TRUE(warned.empty());
  EXPECT_NE(slurp(toml()).find("# stub calibration 1"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(slurp(record()));
  EXPECT_EQ(j["format"], kCalibrationCacheFormat);
  EXPECT_EQ(j["host"]["cpu_model"], "Test CPU @ 2.0GHz");
  EXPECT_EQ(j["build"], request.build);
  EXPECT_EQ(j["nodes"], 2);
  EXPECT_EQ(j["rounds"], 3);
  EXPECT_EQ(j["date"], first.date);
  EXPECT_TRUE(j["took_s"].is_number());

  const UsedCalibration second = get();
  EXPECT_EQ(made.size(), 1U) << "a matching calibration is not made again";
  EXPECT_TRUE(second.reused);
  EXPECT_EQ(second.path, first.path);
  EXPECT_EQ(second.date, first.date);
  ASSERT_EQ(said.size(), 1U);
  EXPECT_EQ(said[0].rfind("calibration: reused " + toml() + ", made " + first.date + " (3 rounds, took ", 0),
            0U)
      << said[0];
  EXPECT_TRUE(warned.empty());
}

TEST_F(CalibrationCacheTest, MadeAgainWhenTheHostOrTheBuildChanged) {
  (void)get();
  request.host.cpu_model = "Another CPU";
  expect_made_again("made on another host (vm, Test CPU @ 2.0GHz, 2 CPUs)");
  request.host.cpus = 4;
  expect_made_again("made on another host");
  request.build = "ncp2=build-id:cc;ncp2-node=build-id:bb";
  expect_made_again("made by another build of ncp2");
  EXPECT_TRUE(warned.empty()) << "a stale calibration is no error";
}

TEST_F(CalibrationCacheTest, MadeAgainWhenItsFormatIsAnother) {
  (void)get();
  edit_record([](nlohmann::json& j) { j = {{"format", kCalibrationCacheFormat + 1}, {"something", "new"}}; });
  expect_made_again(fmt::format("of format {}", kCalibrationCacheFormat + 1));
  EXPECT_TRUE(warned.empty());
}

TEST_F(CalibrationCacheTest, OneKeptPerNodeCount) {
  (void)get();
  request.calibrate.nodes = 4;
  const UsedCalibration four = get();
  EXPECT_FALSE(four.reused);
  EXPECT_EQ(four.path, path("cache/vm-4n.toml"));
  EXPECT_EQ(made.back().nodes, 4);
  request.calibrate.nodes = 2;
  EXPECT_TRUE(get().reused) << "the 2-node calibration is still kept";
  EXPECT_EQ(made.size(), 2U);
  // A record of 2 nodes under the 4-node name (copied by hand) is not taken for 4 nodes.
  spit(path("cache/vm-4n.json"), slurp(record()));
  spit(path("cache/vm-4n.toml"), slurp(toml()));
  request.calibrate.nodes = 4;
  expect_made_again("made on 2 nodes");
}

TEST_F(CalibrationCacheTest, MadeAgainWithFewerRoundsThanAskedOrAnotherLaunch) {
  (void)get();
  request.calibrate.rounds = 9;
  expect_made_again("has 3 rounds, 9 asked");
  request.calibrate.rounds = 5;
  EXPECT_TRUE(get().reused) << "more rounds than asked will do";
  EXPECT_EQ(get().rounds, 9);
  request.calibrate.mpirun_args = {"--bind-to none"};
  expect_made_again("started otherwise (local)");
}

TEST_F(CalibrationCacheTest, RecalibrateMakesItAgain) {
  (void)get();
  request.recalibrate = true;
  const UsedCalibration u = get();
  EXPECT_EQ(made.size(), 2U);
  EXPECT_FALSE(u.reused);
  EXPECT_TRUE(has(said, "calibration: --recalibrate; calibrating")) << said.front();
  EXPECT_NE(slurp(toml()).find("# stub calibration 2"), std::string::npos);
}

TEST_F(CalibrationCacheTest, APresetThatDoesNotParseIsSaidAndMadeAgain) {
  (void)get();
  spit(toml(), "[network\nlink_latency = ");
  const UsedCalibration u = get();
  EXPECT_EQ(made.size(), 2U);
  EXPECT_FALSE(u.reused);
  ASSERT_EQ(warned.size(), 1U);
  EXPECT_EQ(warned[0].rfind("the kept calibration " + toml() + " cannot be used: ", 0), 0U) << warned[0];
  EXPECT_TRUE(has(said, "the kept one cannot be read")) << said.front();
  EXPECT_NE(slurp(toml()).find("# stub calibration 2"), std::string::npos) << "made again";
  EXPECT_TRUE(get().reused);
  EXPECT_TRUE(warned.empty());
}

TEST_F(CalibrationCacheTest, ATruncatedPresetIsSaidAndMadeAgain) {
  (void)get();
  // Cut before a table: still a valid configuration (every missing key has its default), so only
  // the record's hash tells it from the preset that was made.
  const std::string text = slurp(toml());
  const std::size_t cut = text.find("\n[", text.size() / 2);
  ASSERT_NE(cut, std::string::npos);
  spit(toml(), text.substr(0, cut + 1));
  ASSERT_FALSE(preset_problem(toml()));
  (void)get();
  EXPECT_EQ(made.size(), 2U);
  ASSERT_EQ(warned.size(), 1U);
  EXPECT_NE(warned[0].find(toml() + " cannot be used: it is not the preset its record describes"),
            std::string::npos)
      << warned[0];
}

TEST_F(CalibrationCacheTest, AnInvalidPresetMatchingItsRecordIsSaidAndMadeAgain) {
  (void)get();
  // A preset that parses but that the configuration rules refuse, its hash in the record: what a
  // calibration of an older rule set would be.
  const std::string bad = "[machine]\nnodes = 0\n";
  spit(toml(), bad);
  edit_record([&](nlohmann::json& j) { j["preset_hash"] = fmt::format("{:016x}", hash_bytes(bad)); });
  (void)get();
  EXPECT_EQ(made.size(), 2U);
  ASSERT_EQ(warned.size(), 1U);
  EXPECT_NE(warned[0].find(toml() + " cannot be used"), std::string::npos) << warned[0];
  EXPECT_NE(warned[0].find("nodes"), std::string::npos) << "what the rules say: " << warned[0];
}

TEST_F(CalibrationCacheTest, ARecordThatCannotBeReadIsSaidAndMadeAgain) {
  (void)get();
  spit(record(), R"({"format": 1, "host": )");
  (void)get();
  EXPECT_EQ(made.size(), 2U);
  ASSERT_EQ(warned.size(), 1U);
  EXPECT_EQ(warned[0].rfind(
                "the kept calibration's record " + record() + " cannot be read: it is not a JSON object", 0),
            0U)
      << warned[0];
  EXPECT_TRUE(get().reused);

  edit_record([](nlohmann::json& j) { j.erase("build"); });
  (void)get();
  EXPECT_EQ(made.size(), 3U);
  ASSERT_EQ(warned.size(), 1U);
  EXPECT_NE(warned[0].find("'build' is not a text"), std::string::npos) << warned[0];

  edit_record([](nlohmann::json& j) { j["took_s"] = "long"; });
  (void)get();
  EXPECT_EQ(made.size(), 4U);
  EXPECT_TRUE(has(warned, "'took_s' is not a duration"));
}

TEST_F(CalibrationCacheTest, APresetWithoutItsRecordIsSaidAndMadeAgain) {
  (void)get();
  std::filesystem::remove(record());
  (void)get();
  EXPECT_EQ(made.size(), 2U);
  EXPECT_TRUE(has(warned, toml() + " has no record " + record())) << warned.front();
}

TEST_F(CalibrationCacheTest, AFailedCalibrationKeepsNothingNew) {
  const CacheMessages m{[](const std::string&) {}, [](const std::string&) {}};
  const Calibrator fails = [](const CalibrateOptions&) -> std::string {
    throw std::runtime_error("the basic-cost program failed");
  };
  EXPECT_THROW((void)cached_calibration(request, fails, m), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(toml()));
  EXPECT_FALSE(std::filesystem::exists(record()));
  const Calibrator unusable = [](const CalibrateOptions&) { return std::string("[machine]\nnodes = 0\n"); };
  EXPECT_THROW((void)cached_calibration(request, unusable, m), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(toml())) << "an unusable preset is not kept";
  EXPECT_FALSE(std::filesystem::exists(record()));
}

TEST_F(CalibrationCacheTest, TheEstimateFollowsTheLastCalibration) {
  const double model = calibration_estimate_s(9, 2, std::nullopt, 0);
  EXPECT_GT(model, 0);
  EXPECT_GT(calibration_estimate_s(31, 2, std::nullopt, 0), model);
  EXPECT_DOUBLE_EQ(calibration_estimate_s(9, 2, 20.0, 9), 20.0);
  EXPECT_GT(calibration_estimate_s(31, 2, 20.0, 9), 20.0);
  EXPECT_LT(calibration_estimate_s(3, 2, 20.0, 9), 20.0);
  // On 4 nodes the loaded run follows: more than twice as long (15.5 s against 5.3 s at 31 rounds here).
  EXPECT_GT(calibration_estimate_s(31, 4, std::nullopt, 0),
            2 * calibration_estimate_s(31, 2, std::nullopt, 0));
  EXPECT_DOUBLE_EQ(calibration_estimate_s(9, 4, 20.0, 9), 20.0);
}

TEST_F(CalibrationCacheTest, ADirectoryThatCannotBeWrittenIsRefused) {
  spit(path("a-file"), "x");
  const auto problem = cache_dir_problem(path("a-file/cache"));
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("cannot create " + path("a-file/cache")), std::string::npos) << *problem;
  const auto not_dir = cache_dir_problem(path("a-file"));
  ASSERT_TRUE(not_dir);
  EXPECT_EQ(std::filesystem::directory_iterator(request.dir), std::filesystem::directory_iterator())
      << "the probe is removed";
}

TEST(CalibrationCacheDir, TheEnvironmentChoosesIt) {
  const auto keep = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::optional<std::string>() : std::optional<std::string>(v);
  };
  const auto cache = keep("NCP2_CALIBRATION_CACHE"), xdg = keep("XDG_CACHE_HOME"), home = keep("HOME");
  ::setenv("NCP2_CALIBRATION_CACHE", "/tmp/here", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(calibration_cache_dir(), "/tmp/here");
  ::unsetenv("NCP2_CALIBRATION_CACHE");
  EXPECT_EQ(calibration_cache_dir(), "/xdg/ncp2/calibrations");
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // ignored, as the XDG rules say
  EXPECT_EQ(calibration_cache_dir(), "/home/u/.cache/ncp2/calibrations");
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  EXPECT_THROW((void)calibration_cache_dir(), std::runtime_error);
  for (const auto& [name, value] : {std::pair{"NCP2_CALIBRATION_CACHE", cache},
                                    std::pair{"XDG_CACHE_HOME", xdg}, std::pair{"HOME", home}})
    if (value) ::setenv(name, value->c_str(), 1);
}

}  // namespace
}  // namespace ncp2::validation
