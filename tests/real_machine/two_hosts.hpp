#pragma once
// Two Open MPI "hosts" on this one machine (the C++ form of two_hosts.sh, for GoogleTest tests of
// real runs): a hostfile naming two hosts that are not this machine and a fake ssh that runs the
// command here. Open MPI starts one orted per host through the agent, so each host's ranks get
// their own local ranks, as on two machines. Use:
//   TwoHosts hosts(2);                            // 2 slots per host, in a fresh temp dir
//   launch.hostfile = hosts.hostfile;
//   launch.extra_mpirun_args = hosts.mpirun_args; // --mca plm_rsh_agent DIR/fake-ssh ... (below)
//   ... run ...; hosts.agent_hosts() == {"ncp2-fake-a", "ncp2-fake-b"} proves the agent was used.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace ncp2::testing {

struct TwoHosts {
  std::filesystem::path dir;
  std::string hostfile;
  std::string agent;
  std::vector<std::string> mpirun_args;

  explicit TwoHosts(int slots_per_host = 2) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ncp2-two-hosts-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    hostfile = (dir / "hostfile").string();
    agent = (dir / "fake-ssh").string();
    std::ofstream(hostfile) << "ncp2-fake-a slots=" << slots_per_host
                            << "\nncp2-fake-b slots=" << slots_per_host << "\n";
    // Open MPI calls: fake-ssh [options] HOST COMMAND...; the command runs here, through a shell.
    std::ofstream(agent) << "#!/bin/sh\n"
                         << "while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n"
                         << "echo \"$1\" >>'" << (dir / "agent.log").string()
                         << "'\n"
                         // Each host its own temp dir: two orteds on one machine would race for one
                         // session dir (mkdir: File exists) and hang or fail the launch.
                         << "export TMPDIR='" << dir.string() << "/tmp.'\"$1\"; mkdir -p \"$TMPDIR\"\n"
                         << "shift\n"
                         << "exec /bin/sh -c \"$*\"\n";
    chmod(agent.c_str(), 0755);
    // No tree spawn: each orted is started from mpirun, so every launch goes through the agent.
    // No shared-memory topology: two orteds writing it on one machine crashed in hwloc.
    // TCP between ranks: vader's segments are named after the real hostname and the local rank,
    // the same on both fake hosts (MPI programs crashed in it).
    mpirun_args = {
        "--mca", "plm_rsh_agent", agent, "--mca",   "plm_rsh_no_tree_spawn", "1", "--mca", "rtc_hwloc_vmhole",
        "none",  "--mca",         "btl", "tcp,self"};
  }
  ~TwoHosts() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;
  TwoHosts(TwoHosts&&) = delete;
  TwoHosts& operator=(TwoHosts&&) = delete;

  // The hosts the fake agent was asked to reach, sorted (one line per orted started).
  std::vector<std::string> agent_hosts() const {
    std::vector<std::string> hosts;
    std::ifstream log(dir / "agent.log");
    for (std::string line; std::getline(log, line);) hosts.push_back(line);
    std::sort(hosts.begin(), hosts.end());
    return hosts;
  }
};

}  // namespace ncp2::testing
