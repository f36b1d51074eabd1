// Slurm's answers about a job array, read (sweep/slurm_tasks.hpp).
#include "sweep/slurm_tasks.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "real_machine/subprocess.hpp"

namespace ncp2::sweep {

// Names unique to this file: sweep/ compiles as unity batches (CMakeLists.txt, NCP2_UNITY_BUILD).
namespace slurm_text {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::optional<int> to_int(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A state word only: "CANCELLED by 0" -> "CANCELLED".
std::string state_word(std::string_view state) {
  state = trim(state);
  return std::string(state.substr(0, state.find(' ')));
}

}  // namespace
}  // namespace slurm_text

bool is_active_state(std::string_view state) {
  static constexpr std::array<std::string_view, 9> kFinal{"COMPLETED", "FAILED",    "TIMEOUT",
                                                          "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
                                                          "PREEMPTED", "BOOT_FAIL", "DEADLINE"};
  for (const std::string_view final_state : kFinal)
    if (state == final_state) return false;
  return true;
}

std::map<int, SlurmTaskState> parse_squeue_tasks(std::string_view output) {
  std::map<int, SlurmTaskState> tasks;
  for (const std::string_view line : slurm_text::split(output, '\n')) {
    const std::vector<std::string_view> fields = slurm_text::split(slurm_text::trim(line), '|');
    if (fields.size() != 2) continue;
    const std::optional<int> task = slurm_text::to_int(slurm_text::trim(fields[0]));
    const std::string state = slurm_text::state_word(fields[1]);
    if (task && *task >= 0 && !state.empty()) tasks[*task] = SlurmTaskState{state, std::nullopt};
  }
  return tasks;
}

std::map<int, SlurmTaskState> parse_sacct_tasks(std::string_view output, std::string_view job_id) {
  std::map<int, SlurmTaskState> tasks;
  const std::string prefix = fmt::format("{}_", job_id);
  for (const std::string_view line : slurm_text::split(output, '\n')) {
    const std::vector<std::string_view> fields = slurm_text::split(slurm_text::trim(line), '|');
    if (fields.size() != 3 || !fields[0].starts_with(prefix)) continue;
    const std::optional<int> task = slurm_text::to_int(fields[0].substr(prefix.size()));
    if (!task || *task < 0) continue;
    SlurmTaskState state{slurm_text::state_word(fields[1]), std::nullopt};
    // ExitCode is "code:signal"; a task killed by a signal has no exit code of its own.
    const std::vector<std::string_view> code = slurm_text::split(fields[2], ':');
    if (code.size() == 2 && code[1] == "0") state.exit_code = slurm_text::to_int(code[0]);
    if (!state.state.empty()) tasks[*task] = state;
  }
  return tasks;
}

std::optional<std::string> state_from_log(std::string_view log) {
  // slurmstepd's last words, from the end: a requeued task's log may hold an earlier one.
  const std::size_t at = log.rfind("*** JOB ");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view line = log.substr(at, log.find('\n', at) - at);
  if (line.find("DUE TO TIME LIMIT") != std::string_view::npos) return "TIMEOUT";
  if (line.find("DUE TO NODE FAILURE") != std::string_view::npos) return "NODE_FAIL";
  if (line.find("DUE TO PREEMPTION") != std::string_view::npos) return "PREEMPTED";
  if (line.find("CANCELLED AT") != std::string_view::npos) return "CANCELLED";
  return std::nullopt;
}

std::optional<std::string> job_id_from_sbatch(std::string_view output) {
  std::optional<std::string> id;
  for (const std::string_view line : slurm_text::split(output, '\n')) {
    const std::string_view first = slurm_text::trim(line.substr(0, line.find(';')));
    if (slurm_text::to_int(first)) id = std::string(first);
  }
  return id;
}

std::string points_file_line(const std::string& log, const std::vector<std::string>& argv) {
  if (argv.empty()) throw SlurmError("a point has no command");
  std::vector<std::string> words{log.empty() ? "-" : log};
  words.insert(words.end(), argv.begin(), argv.end());
  for (const std::string& word : words)
    if (word.find_first_of(std::string_view("\n\0", 2)) != std::string::npos)
      throw SlurmError(
          fmt::format("a point's command word '{}' holds a newline or a NUL: a job's points "
                      "file holds one command a line",
                      word));
  return real::command_line_text(words);
}

std::optional<TaskExit> parse_task_exit(std::string_view text) {
  const std::vector<std::string_view> fields =
      slurm_text::split(slurm_text::trim(text.substr(0, text.find('\n'))), ' ');
  if (fields.empty()) return std::nullopt;
  const std::optional<int> code = slurm_text::to_int(fields[0]);
  if (!code) return std::nullopt;
  TaskExit exit{*code, 0};
  if (fields.size() == 3) {
    // EPOCHREALTIME's seconds with microseconds; a clock that went back gives no duration.
    double start = 0, end = 0;
    const auto read = [](std::string_view word, double& value) {
      return std::from_chars(word.data(), word.data() + word.size(), value).ec == std::errc{};
    };
    if (read(fields[1], start) && read(fields[2], end)) exit.wall_s = std::max(0.0, end - start);
  }
  return exit;
}

}  // namespace ncp2::sweep
