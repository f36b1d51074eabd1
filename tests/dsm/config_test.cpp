#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "dsm/config.hpp"

// The whole system's configuration: the machine's keys (emulator/config.hpp) and the protocol's
// (dsm/config.hpp), read, checked and printed through one table.
namespace ncp2::dsm {
namespace {
using namespace emu::literals;
using emu::ConfigError;
using emu::MachineKind;
using emu::Topology;

const std::string kConfigs = std::string(NCP2_SOURCE_DIR) + "/configs/";

// Returns the ConfigError message raised by `fn`, or "" when none was raised.
template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

SystemConfig from_text(std::string_view text) {
  SystemConfig c = default_config(MachineKind::Ncp2);
  apply_toml_text(c, text, "test.toml");
  validate(c);
  return c;
}

TEST(Config, DefaultsAreValidForBothMachines) {
  EXPECT_NO_THROW(validate(default_config(MachineKind::Ncp2)));
  EXPECT_NO_THROW(validate(default_config(MachineKind::TreadMarks)));
  EXPECT_TRUE(default_config(MachineKind::Ncp2).has_cp());
  EXPECT_FALSE(default_config(MachineKind::TreadMarks).has_cp());
}

TEST(Config, DefaultsAreTheNcp2ValuesOfTheSpec) {
  const SystemConfig c = default_config(MachineKind::Ncp2);
  EXPECT_DOUBLE_EQ(c.pp.clock_mhz, 100.0);
  EXPECT_DOUBLE_EQ(c.network.link_bandwidth, 1.28e9 / 8);
  EXPECT_EQ(c.network.switch_ports, 8);
  EXPECT_EQ(c.memory.page_size, 4096);
  EXPECT_EQ(c.memory.dram_mb, 32);
  EXPECT_EQ(c.memory.l2_kb, 256);
}

TEST(Config, ShippedNcp2FileStatesEveryKeyWithTheBuiltInDefaults) {
  const auto table = toml::parse_file(kConfigs + "ncp2.toml");
  std::size_t keys_in_file = 0;
  for (const auto& key : config_keys()) {
    EXPECT_TRUE(table.at_path(key.key).is_value()) << key.key << " missing from configs/ncp2.toml";
    keys_in_file += table.at_path(key.key).is_value() ? 1 : 0;
  }
  EXPECT_EQ(keys_in_file, config_keys().size());
  SystemConfig from_file = default_config(MachineKind::TreadMarks);  // every key gets overwritten
  apply_toml_file(from_file, kConfigs + "ncp2.toml");
  EXPECT_EQ(to_toml(from_file), to_toml(default_config(MachineKind::Ncp2)));
}

TEST(Config, ShippedTreadMarksFileIsTheSameHardwareWithoutCp) {
  SystemConfig c = default_config(MachineKind::Ncp2);
  apply_toml_file(c, kConfigs + "treadmarks.toml");
  EXPECT_EQ(to_toml(c), to_toml(default_config(MachineKind::TreadMarks)));
}

TEST(Config, ShippedWorkstationClusterFileIsValid) {
  SystemConfig c = default_config(MachineKind::Ncp2);
  apply_toml_file(c, kConfigs + "workstations-atm.toml");
  EXPECT_NO_THROW(validate(c));
  EXPECT_FALSE(c.has_cp());
  EXPECT_DOUBLE_EQ(c.network.link_bandwidth, 100e6 / 8);
}

TEST(Config, PrintedConfigurationReadsBackUnchanged) {
  SystemConfig c = default_config(MachineKind::TreadMarks);
  c.machine.nodes = 13;
  c.pp.interrupt_overhead = 1234567_ps;
  c.network.link_bandwidth = 123.456e6;
  c.network.topology = Topology::Chain;
  c.cp.command_cost["page_reply"] = 7_us;
  SystemConfig back = default_config(MachineKind::Ncp2);
  apply_toml_text(back, to_toml(c), "printed");
  EXPECT_EQ(to_toml(back), to_toml(c));
  EXPECT_EQ(back.pp.interrupt_overhead, 1234567_ps);
  EXPECT_EQ(back.machine.kind, MachineKind::TreadMarks);
}

TEST(Config, UnknownKeyNamesFileLineAndSuggestsTheClosestKey) {
  const std::string msg = error_of([] { from_text("[network]\nlink_bandwith = \"1 GB/s\"\n"); });
  EXPECT_NE(msg.find("test.toml:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key 'network.link_bandwith'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'network.link_bandwidth'"), std::string::npos) << msg;
}

TEST(Config, UnknownSectionIsReported) {
  const std::string msg = error_of([] { from_text("[netwrk]\nlink_latency = \"1 us\"\n"); });
  EXPECT_NE(msg.find("did you mean 'network.link_latency'"), std::string::npos) << msg;
}

TEST(Config, HopelessKeyGetsNoSuggestion) {
  const std::string msg = error_of([] { from_text("zzzzzzzzzzzzzzzzzzzz = 1\n"); });
  EXPECT_NE(msg.find("unknown key"), std::string::npos);
  EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;
}

TEST(Config, WrongTypesAreNamed) {
  EXPECT_NE(error_of([] {
              from_text("[network]\nlink_latency = 5\n");
            }).find("expected a duration string with a unit"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              from_text("[machine]\nnodes = \"eight\"\n");
            }).find("key 'machine.nodes' (integer): expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              from_text("[network]\ntopology = \"ring\"\n");
            }).find("'ring' is not one of: auto, star, tree, chain"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              from_text("[network]\nlink_bandwidth = \"1.28 Gbit\"\n");
            }).find("unknown bandwidth unit 'Gbit'"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { from_text("[network]\nlink_latency = \"100 furlongs\"\n"); }).find("unknown time unit"),
      std::string::npos);
  EXPECT_NE(error_of([] { from_text("[network]\nlink_latency = \"100\"\n"); }).find("needs a unit"),
            std::string::npos);
  EXPECT_NE(error_of([] { from_text("network = 3\n"); }).find("unknown key 'network'"), std::string::npos);
}

TEST(Config, ZeroOrNegativeValuesAreRejected) {
  EXPECT_NE(error_of([] {
              from_text("[network]\nlink_bandwidth = \"0 MB/s\"\n");
            }).find("key 'network.link_bandwidth' (bandwidth): 0 MB/s is out of range: allowed 1 kB/s .. "),
            std::string::npos);
  EXPECT_NE(error_of([] { from_text("[pp]\ninterrupt_overhead = \"-1 us\"\n"); }).find("negative"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { from_text("[machine]\nnodes = 0\n"); }).find("0 is out of range: allowed 1 .. 16384"),
      std::string::npos);
  EXPECT_NE(error_of([] { from_text("[memory]\npage_size = 3000\n"); }).find("power of two"),
            std::string::npos);
}

// Every numeric key has a range (issue 17): values that would overflow virtual time, exhaust the
// host or are not numbers are refused where they are written, with the allowed range.
TEST(Config, ValuesOutsideTheirKeysRangeAreRefusedWithThePlace) {
  const auto refused = [](const char* text) { return error_of([text] { from_text(text); }); };
  EXPECT_NE(refused("[network]\nlink_latency = \"1000000 s\"\n")
                .find("test.toml:2:1: key 'network.link_latency' (duration): 1000000 s is out of range: "
                      "allowed 0 s .. 1 s"),
            std::string::npos);
  EXPECT_NE(
      refused("[pp]\nclock_mhz = inf\n").find("key 'pp.clock_mhz' (number): inf is not a finite number"),
      std::string::npos);
  EXPECT_NE(refused("[pp]\nclock_mhz = nan\n").find("is not a finite number"), std::string::npos);
  EXPECT_NE(refused("[emulator]\nfiber_stack_kb = 2000000000\n").find("is out of range: allowed 16 .. 65536"),
            std::string::npos);
  EXPECT_NE(refused("[cost]\nflop = -1.0\n").find("is out of range"), std::string::npos);
  EXPECT_NE(refused("[network]\nheader_bytes = -4\n").find("-4 is out of range"), std::string::npos);
  EXPECT_NE(refused("[network]\nlink_bandwidth = \"2000000 GB/s\"\n").find("is out of range"),
            std::string::npos);
  SystemConfig c = default_config(MachineKind::Ncp2);
  EXPECT_THROW(apply_override(c, "network.switch_delay=2s"), ConfigError);
  EXPECT_THROW(apply_override(c, "pp.clock_mhz=inf"), ConfigError);
  apply_override(c, "network.switch_delay=1s");  // the bounds themselves are allowed
  apply_override(c, "emulator.fiber_stack_kb=65536");
  EXPECT_EQ(c.emulator.fiber_stack_kb, 65536);
}

TEST(Config, EveryKeyStatesItsRange) {
  for (const auto& key : config_keys()) {
    if (key.type.starts_with("one of")) {
      EXPECT_TRUE(key.range.empty()) << key.key;
      continue;
    }
    EXPECT_NE(key.range.find(" .. "), std::string::npos) << key.key << ": " << key.range;
  }
}

// Issue 21 goal 6: a barrier run of 16,384 nodes (bench/scale) is accepted; one more is not.
TEST(Config, SixteenThousandThreeHundredEightyFourNodesAreAccepted) {
  EXPECT_EQ(emu::kMaxNodes, 16384);
  EXPECT_EQ(from_text("[machine]\nnodes = 16384\n").machine.nodes, 16384);
  EXPECT_NE(error_of([] { from_text("[machine]\nnodes = 16385\n"); }).find("allowed 1 .. 16384"),
            std::string::npos);
  auto c = default_config(emu::MachineKind::Ncp2);
  c.machine.nodes = 16384;
  EXPECT_NO_THROW(validate(c));
  c.machine.nodes = 16385;
  EXPECT_NE(error_of([&] { validate(c); }).find("at most 16384 nodes are supported"), std::string::npos);
}

TEST(Config, ImpossibleTopologiesAreRejected) {
  EXPECT_NE(error_of([] {
              from_text("[machine]\nnodes = 9\n[network]\ntopology = \"star\"\n");
            }).find("cannot connect 9 nodes"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              from_text("[machine]\nnodes = 16\n[network]\nswitch_ports = 2\n");
            }).find("at least 3 ports"),
            std::string::npos);
  EXPECT_NO_THROW(from_text("[machine]\nnodes = 64\n[network]\ntopology = \"tree\"\n"));
}

TEST(Config, SyntaxErrorsPointAtTheLine) {
  const std::string msg = error_of([] { from_text("[network]\nlink_latency = \"1 us\n"); });
  EXPECT_NE(msg.find("test.toml:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("TOML syntax error"), std::string::npos) << msg;
}

TEST(Config, MissingFileIsAClearError) {
  SystemConfig c = default_config(MachineKind::Ncp2);
  const std::string msg = error_of([&] { apply_toml_file(c, "/nonexistent/x.toml"); });
  EXPECT_NE(msg.find("/nonexistent/x.toml"), std::string::npos) << msg;
}

TEST(Config, CommandLineOverridesParseLikeTheFile) {
  SystemConfig c = default_config(MachineKind::Ncp2);
  apply_override(c, "network.link_latency=250ns");
  apply_override(c, "machine.nodes = 12");
  apply_override(c, "network.topology=chain");
  apply_override(c, "cp.command_cost.page_reply=\"3 us\"");
  EXPECT_EQ(c.network.link_latency, 250_ns);
  EXPECT_EQ(c.machine.nodes, 12);
  EXPECT_EQ(c.network.topology, Topology::Chain);
  EXPECT_EQ(c.cp.cost_of("page_reply"), 3_us);
  EXPECT_NE(
      error_of([&] { apply_override(c, "network.latency=1us"); }).find("did you mean 'network.link_latency'"),
      std::string::npos);
  EXPECT_NE(error_of([&] { apply_override(c, "machine.nodes=abc"); }).find("--set: key 'machine.nodes'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override(c, "machine.nodes"); }).find("expected key=value"),
            std::string::npos);
}

TEST(Config, UnitParsing) {
  EXPECT_EQ(emu::parse_duration("4us"), 4_us);
  EXPECT_EQ(emu::parse_duration("0.5 ms"), 500_us);
  EXPECT_EQ(emu::parse_duration("1e3 ns"), 1_us);
  EXPECT_EQ(emu::parse_duration("0"), 0_ps);
  EXPECT_DOUBLE_EQ(emu::parse_bandwidth("1.28 Gbit/s"), 160e6);
  EXPECT_DOUBLE_EQ(emu::parse_bandwidth("160MB/s"), 160e6);
  EXPECT_DOUBLE_EQ(emu::parse_bandwidth("1 MiB/s"), 1048576.0);
  EXPECT_THROW(emu::parse_bandwidth("fast"), ConfigError);
}

TEST(Config, UnknownCommandCostIsAClearError) {
  const SystemConfig c = default_config(MachineKind::Ncp2);
  EXPECT_NE(error_of([&] { (void)c.cp.cost_of("teleport"); }).find("cp.command_cost.teleport"),
            std::string::npos);
}

TEST(Config, EveryKeyIsDocumented) {
  std::ifstream doc(std::string(NCP2_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_TRUE(doc) << "docs/configuration.md is missing";
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  for (const auto& key : config_keys()) {
    EXPECT_NE(text.find("`" + key.key + "`"), std::string::npos)
        << key.key << " is not in docs/configuration.md";
    EXPECT_FALSE(key.description.empty()) << key.key;
    EXPECT_FALSE(key.source.empty()) << key.key;
  }
}

TEST(Config, OperationCostsAreKeysWithBounds) {
  SystemConfig c = default_config(MachineKind::Ncp2);
  apply_override(c, "cost.flop=3.5");
  EXPECT_DOUBLE_EQ(c.cost.flop, 3.5);
  validate(c);
  c.cost.load = -1;
  EXPECT_THROW(validate(c), ConfigError);
  c.cost.load = 1;
  c.cost.branch = std::numeric_limits<double>::quiet_NaN();
  try {
    validate(c);
    ADD_FAILURE() << "a NaN cost must be rejected";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cost.branch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ncp2::dsm
