#pragma once
// The output of a program's node processes on ours: a thread reads each node's stdout and stderr
// pipes and writes whole lines, prefixed with the node ("[node 3] ..."), to our stdout and stderr.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace ncp2::tmk {

class OutputRelay {
 public:
  OutputRelay() = default;
  ~OutputRelay();  // waits for every pipe to close (the processes ended), then stops
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  // A pipe for node `node`'s stdout (or stderr): returns the end the process writes to (the
  // caller closes it after starting the process).
  int add(int node, bool is_stderr);
  void start();
  void finish();  // waits for the pipes to close

 private:
  struct Source {
    int fd;
    int node;
    bool is_stderr;
    std::string partial;  // a line not yet ended
  };
  void loop();

  std::vector<Source> sources_;
  // ncp2's own streams, taken when the relay is made: the fiber runner points libc's stdout and
  // stderr at a node's streams while the node runs, and this thread must not follow them.
  std::FILE* out_ = stdout;
  std::FILE* err_ = stderr;
  std::thread thread_;
};

}  // namespace ncp2::tmk
