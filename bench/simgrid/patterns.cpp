// The message patterns of emulator/traffic_patterns.cpp, written for SimGrid (s4u), to compare
// simulation speeds: bench/compare-simgrid builds and runs it. Not part of the CMake build.
//
//   patterns barrier  N R [--cfg=...]   N actors; each round actors 1..N-1 put an arrival to
//                                       actor 0, which gets N-1 of them and then puts a release
//                                       to each (2(N-1) messages per round)
//   patterns pingpong R   [--cfg=...]   actor 0 puts to actor 1, which answers (2 per round)
//
// Platform: one crossbar cluster like the NCP2 network with its defaults: a private split-duplex
// link per host (1.28 Gbit/s = 160 MBps, 100 ns) and a non-shared backbone (500 ns, the switch
// delay), so an uncontended message takes 100 + 500 + 100 ns + 24 B / 160 MBps. Messages are
// 24 bytes on the wire (payload 8 + header 16, as in the emulator). The network model is CM02
// without latency or bandwidth correction factors and without cross-traffic, the closest
// SimGrid has to our store-and-forward-free link model.
//
// Prints one line (logging is off):
//   simgrid pattern=barrier nodes=8 rounds=R messages=M wall_s=X msgs_per_s=Y sim_s=Z
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <unistd.h>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kWireBytes = 8 + 16;  // payload + header, as the emulator's defaults

int g_nodes = 0;
int g_rounds = 0;
unsigned long long g_messages = 0;
int g_token = 0;  // what every message carries (its address); content is irrelevant

sg4::Mailbox* mailbox_of(int i) { return sg4::Mailbox::by_name("node-" + std::to_string(i)); }

void barrier_actor(int me) {
  sg4::Mailbox* mine = mailbox_of(me);
  if (me == 0) {
    std::vector<sg4::Mailbox*> others;
    for (int i = 1; i < g_nodes; ++i) others.push_back(mailbox_of(i));
    std::vector<sg4::CommPtr> arrivals;
    std::vector<sg4::CommPtr> releases;
    std::vector<int*> received(static_cast<std::size_t>(g_nodes - 1), nullptr);
    for (int r = 0; r < g_rounds; ++r) {
      // The arrivals travel concurrently (as into the emulator's node 0), not one get at a time.
      for (int*& slot : received) arrivals.push_back(mine->get_async<int>(&slot));
      sg4::Comm::wait_all(arrivals);
      arrivals.clear();
      g_messages += static_cast<unsigned long long>(g_nodes - 1);
      // All releases leave at once (the emulator's node 0 also queues them back to back).
      for (sg4::Mailbox* other : others) releases.push_back(other->put_async(&g_token, kWireBytes));
      sg4::Comm::wait_all(releases);
      releases.clear();
    }
  } else {
    sg4::Mailbox* root = mailbox_of(0);
    for (int r = 0; r < g_rounds; ++r) {
      root->put(&g_token, kWireBytes);
      mine->get<int>();
      ++g_messages;
    }
  }
}

void pingpong_actor(int me) {
  sg4::Mailbox* mine = mailbox_of(me);
  sg4::Mailbox* peer = mailbox_of(1 - me);
  for (int r = 0; r < g_rounds; ++r) {
    if (me == 0) {
      peer->put(&g_token, kWireBytes);
      mine->get<int>();
    } else {
      mine->get<int>();
      peer->put(&g_token, kWireBytes);
    }
    ++g_messages;
  }
}

// A SimGrid cluster zone written to a temporary file (the cluster tag is the simplest portable
// way to get a crossbar with a backbone latency in SimGrid 3.32).
std::string write_platform(int nodes) {
  char path[] = "/tmp/ncp2-simgrid-platform-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    std::perror("mkstemp");
    std::exit(1);
  }
  close(fd);
  std::ofstream out(path);
  out << "<?xml version='1.0'?>\n"
         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n"
         "  <cluster id=\"ncp2\" prefix=\"node-\" suffix=\"\" radical=\"0-"
      << nodes - 1
      << "\" speed=\"100Mf\"\n"
         "           bw=\"160MBps\" lat=\"100ns\" sharing_policy=\"SPLITDUPLEX\"\n"
         "           bb_bw=\"1TBps\" bb_lat=\"500ns\" bb_sharing_policy=\"FATPIPE\"/>\n"
         "</platform>\n";
  out.close();
  if (!out) {
    std::fprintf(stderr, "patterns: cannot write the platform file %s\n", path);
    std::exit(1);
  }
  return path;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: patterns barrier NODES ROUNDS [--cfg=...]\n"
               "       patterns pingpong ROUNDS [--cfg=...]\n");
  std::exit(2);
}

int positive(const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 1 || v > 100000000) usage();
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) usage();
  const std::string pattern = argv[1];
  int first_extra = 0;
  if (pattern == "barrier") {
    if (argc < 4) usage();
    g_nodes = positive(argv[2]);
    g_rounds = positive(argv[3]);
    if (g_nodes < 2) usage();
    first_extra = 4;
  } else if (pattern == "pingpong" || pattern == "ping-pong") {
    g_nodes = 2;
    g_rounds = positive(argv[2]);
    first_extra = 3;
  } else {
    usage();
  }

  // The engine sees the program name, our defaults, then whatever --cfg the caller added.
  std::vector<std::string> args = {argv[0],
                                   "--log=root.threshold:critical",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/latency-factor:1.0",
                                   "--cfg=network/bandwidth-factor:1.0",
                                   "--cfg=network/crosstraffic:0"};
  for (int i = first_extra; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> engine_argv;
  for (auto& a : args) engine_argv.push_back(a.data());
  int engine_argc = static_cast<int>(engine_argv.size());
  xbt_log_control_set("root.threshold:critical");

  const auto start = std::chrono::steady_clock::now();
  sg4::Engine engine(&engine_argc, engine_argv.data());
  const std::string platform = write_platform(g_nodes);
  engine.load_platform(platform);
  std::remove(platform.c_str());
  for (int i = 0; i < g_nodes; ++i) {
    sg4::Host* host = engine.host_by_name("node-" + std::to_string(i));
    if (pattern == "barrier")
      sg4::Actor::create("node-" + std::to_string(i), host, barrier_actor, i);
    else
      sg4::Actor::create("node-" + std::to_string(i), host, pingpong_actor, i);
  }
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const unsigned long long expected =
      2ULL * static_cast<unsigned long long>(g_nodes - 1) * static_cast<unsigned long long>(g_rounds);
  if (g_messages != expected) {
    std::fprintf(stderr, "patterns: %llu messages received, expected %llu\n", g_messages, expected);
    return 1;
  }
  std::printf("simgrid pattern=%s nodes=%d rounds=%d messages=%llu wall_s=%.6f msgs_per_s=%.0f sim_s=%.9f\n",
              pattern == "barrier" ? "barrier" : "pingpong", g_nodes, g_rounds, g_messages, wall,
              static_cast<double>(g_messages) / wall, sg4::Engine::get_clock());
  return 0;
}
