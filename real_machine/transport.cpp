#include "real_machine/transport.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::real {

namespace {
void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int n = 0;
  MPI_Error_string(rc, text.data(), &n);
  throw std::runtime_error(
      fmt::format("MPI: {} failed: {}", what, std::string(text.data(), static_cast<std::size_t>(n))));
}
}  // namespace

Transport::Transport(MPI_Comm world) {
  check(MPI_Comm_dup(world, &comm_), "MPI_Comm_dup");
  // Errors come back as return codes (and become exceptions with MPI's text) instead of aborting.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Transport::~Transport() {
  // Sends MPI has not completed by now go to a peer that is gone: cancel rather than hang.
  for (auto& [request, body] : in_flight_) {
    MPI_Cancel(&request);
    MPI_Request_free(&request);
  }
  MPI_Comm_free(&comm_);
}

std::string_view to_string(Tag tag) {
  const auto kind = static_cast<int>(tag);
  if (kind >= lrc::kPageRequest && kind < lrc::kMessageKindEnd)  // the protocol's: the core's names
    return lrc::message_kind_name(static_cast<std::uint16_t>(kind));
  switch (tag) {
    case Tag::MallocRequest:
    case Tag::FreeRequest:
    case Tag::MallocReply:
    case Tag::FreeReply:
      return "shared_heap";
    default:
      return "control";
  }
}

void Transport::send(int to, Tag tag, std::vector<std::byte> body) {
  if (body.size() > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("message over 2 GiB");
  const std::lock_guard lock(mutex_);
  in_flight_.emplace_back(MPI_REQUEST_NULL, std::move(body));
  auto& [request, buffer] = in_flight_.back();
  check(MPI_Isend(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, to, static_cast<int>(tag), comm_,
                  &request),
        "MPI_Isend");
  ++sent_;
  bytes_ += buffer.size();
  complete_sends();
}

void Transport::complete_sends() {
  // Completed sends are usually the oldest; stop at the first one still in flight.
  while (!in_flight_.empty()) {
    int done = 0;
    check(MPI_Test(&in_flight_.front().first, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) break;
    in_flight_.pop_front();
  }
}

std::optional<Message> Transport::poll() {
  {
    const std::lock_guard lock(mutex_);
    complete_sends();
  }
  int flag = 0;
  MPI_Message handle = MPI_MESSAGE_NULL;
  MPI_Status status{};
  check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &handle, &status), "MPI_Improbe");
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Message m;
  m.from = status.MPI_SOURCE;
  m.tag = static_cast<Tag>(status.MPI_TAG);
  m.body.resize(static_cast<std::size_t>(count));
  check(MPI_Mrecv(m.body.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE), "MPI_Mrecv");
  return m;
}

void Transport::drain() {
  const std::lock_guard lock(mutex_);
  for (auto& [request, body] : in_flight_) check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  in_flight_.clear();
}

}  // namespace ncp2::real
