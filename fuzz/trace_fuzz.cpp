// Fuzz target: the bandwidth-trace reader (`ncp2 schedule --set FILE` reads what
// `ncp2 counters --trace` or a user wrote). Bad input must end in sched::TraceError (a message
// naming the file and line), never a crash or another exception; a trace that was accepted must
// pass check_trace and print (format_trace) as text that reads back to the same printout.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "scheduling/trace.hpp"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ncp2::sched::DemandTrace trace;
  try {
    trace = ncp2::sched::parse_trace(text, "fuzz.trace");
  } catch (const ncp2::sched::TraceError&) {
    return 0;
  }
  try {
    ncp2::sched::check_trace(trace, "accepted");
  } catch (const ncp2::sched::TraceError&) {
    ncp2::fuzz::check(false, "parse_trace accepted a trace that check_trace refuses");
  }
  const std::string printed = ncp2::sched::format_trace(trace);
  ncp2::sched::DemandTrace again;
  try {
    again = ncp2::sched::parse_trace(printed, "printed");
  } catch (const ncp2::sched::TraceError&) {
    ncp2::fuzz::check(false, "an accepted trace prints as text that does not read back");
  }
  ncp2::fuzz::check(ncp2::sched::format_trace(again) == printed, "the printed trace reads back differently");
  return 0;
}
