#pragma once
// Running a command as a child, its standard output and error captured together: `mpirun
// --version` (launcher.cpp), and `ncp2-cc` and `ncp2 run` as `ncp2 calibrate` and `ncp2 validate`
// run them; in the background, its output in a file (`ncp2 sweep`'s points); and where ncp2's own
// executables are.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace ncp2::real {

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal, or could not start
  std::string output;  // standard output and error, interleaved
};

// Runs argv[0] (searched on PATH when it has no '/') with `argv`; never throws for the command's
// own failure (it is in the result), throws std::runtime_error when it cannot be started.
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv);

// The directory of the running ncp2 executable (ncp2-cc and ncp2-node sit next to it).
[[nodiscard]] std::string own_directory();
// `name` (ncp2-node, ncp2-cc, ncp2) next to the running executable; throws std::runtime_error
// saying it is missing.
[[nodiscard]] std::string executable_next_to_us(const std::string& name);

// The last `lines` lines of `text` (for a failure's message).
[[nodiscard]] std::string last_lines(const std::string& text, int lines);

// The command as a shell would read it back: words quoted only where they need it (logs, messages,
// a sweep's stored command).
[[nodiscard]] std::string command_line_text(const std::vector<std::string>& argv);

// A command running in the background, leader of a process group of its own, its standard output
// and error appended to a file (`ncp2 sweep`'s points). Its own group keeps a terminal's Ctrl-C
// from reaching it directly, so that its starter decides how it stops; it is sent SIGTERM if its
// starter dies first. Destroying a command still running kills its group and reaps it.
class BackgroundCommand {
 public:
  // Starts argv[0] (searched on PATH when it has no '/'). Throws std::runtime_error when the
  // output file cannot be opened or the process not started; a program that cannot be executed
  // ends with exit code 127 and the reason in the output file.
  BackgroundCommand(const std::vector<std::string>& argv, const std::string& output_path);
  ~BackgroundCommand();
  BackgroundCommand(BackgroundCommand&& other) noexcept;
  BackgroundCommand& operator=(BackgroundCommand&& other) noexcept;
  BackgroundCommand(const BackgroundCommand&) = delete;
  BackgroundCommand& operator=(const BackgroundCommand&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  // Its exit code once it has ended (-1: killed by a signal), without blocking; nullopt while it
  // runs. The process is reaped by the call that sees it end.
  [[nodiscard]] std::optional<int> poll();
  // Sends `signal` to the command itself, or to every process of its group.
  void signal(int signal) const;
  void signal_group(int signal) const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace ncp2::real
