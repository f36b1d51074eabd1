#include "real_machine/transport.hpp"

#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace ncp2::real {

namespace {

void check(ucs_status_t status, const char* what) {
  if (status == UCS_OK) return;
  throw std::runtime_error(fmt::format("UCX: {} failed: {}", what, ucs_status_string(status)));
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int n = 0;
  MPI_Error_string(rc, text.data(), &n);
  throw std::runtime_error(
      fmt::format("MPI: {} failed: {}", what, std::string(text.data(), static_cast<std::size_t>(n))));
}

// A message's UCX tag: its sender in the high half, its kind in the low one.
ucp_tag_t tag_of(int from, Tag tag) {
  return (static_cast<ucp_tag_t>(static_cast<std::uint32_t>(from)) << 32U) | static_cast<std::uint32_t>(tag);
}

}  // namespace

struct Transport::Ucx {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  std::vector<ucp_ep_h> peers;  // one endpoint per node, this one's included
  int event_fd = -1;            // UCX's: readable when the worker has something to progress
  int wake_fd = -1;             // an eventfd: wake()
  int epoll_fd = -1;

  ~Ucx() {
    for (ucp_ep_h ep : peers) {
      if (ep == nullptr) continue;
      ucp_request_param_t close{};
      close.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      close.flags = UCP_EP_CLOSE_FLAG_FORCE;  // the peers may be gone: do not wait for them
      void* request = ucp_ep_close_nbx(ep, &close);
      if (UCS_PTR_IS_PTR(request)) {
        while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker);
        ucp_request_free(request);
      }
    }
    if (epoll_fd >= 0) ::close(epoll_fd);
    if (wake_fd >= 0) ::close(wake_fd);
    if (worker != nullptr) ucp_worker_destroy(worker);
    if (context != nullptr) ucp_cleanup(context);
  }
};

Transport::Transport(MPI_Comm world) : ucx_(std::make_unique<Ucx>()) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &size_);
  std::string failed;
  try {
    start_worker();
  } catch (const std::exception& e) {
    failed = e.what();
  }
  // Every node learns whether every worker started: one that did not must not leave the others
  // waiting in the collective that follows.
  int mine = failed.empty() ? 1 : 0;
  int all = 0;
  check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce");
  if (!failed.empty()) throw std::runtime_error(failed);
  if (all == 0) throw std::runtime_error("UCX did not start on another node (its message says why)");
  connect_all(world);
}

// This node's UCX worker and what waits on it (no communication).
void Transport::start_worker() {
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP;
  ucp_config_t* config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "reading its configuration");
  const ucs_status_t started = ucp_init(&params, config, &ucx_->context);
  ucp_config_release(config);
  check(started, "ucp_init");
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // every call under mutex_
  check(ucp_worker_create(ucx_->context, &wp, &ucx_->worker), "ucp_worker_create");
  check(ucp_worker_get_efd(ucx_->worker, &ucx_->event_fd), "ucp_worker_get_efd");
  ucx_->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ucx_->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (ucx_->wake_fd < 0 || ucx_->epoll_fd < 0) throw std::runtime_error("eventfd/epoll: out of descriptors");
  for (const int fd : {ucx_->event_fd, ucx_->wake_fd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(ucx_->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
      throw std::runtime_error("epoll_ctl: cannot watch UCX's event descriptor");
  }
}

// Every node's worker address to every node (a collective), then an endpoint to each: the
// connections are made before the program starts, not at its first message.
void Transport::connect_all(MPI_Comm world) {
  ucp_address_t* mine = nullptr;
  std::size_t length = 0;
  check(ucp_worker_get_address(ucx_->worker, &mine, &length), "ucp_worker_get_address");
  const auto n = static_cast<std::size_t>(size_);
  std::vector<int> lengths(n);
  const int my_length = static_cast<int>(length);
  check_mpi(MPI_Allgather(&my_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, world), "MPI_Allgather");
  std::vector<int> at(n, 0);
  for (std::size_t k = 1; k < n; ++k) at[k] = at[k - 1] + lengths[k - 1];
  std::vector<std::byte> all(static_cast<std::size_t>(at[n - 1] + lengths[n - 1]));
  check_mpi(MPI_Allgatherv(mine, my_length, MPI_BYTE, all.data(), lengths.data(), at.data(), MPI_BYTE, world),
            "MPI_Allgatherv");
  ucp_worker_release_address(ucx_->worker, mine);
  ucx_->peers.assign(n, nullptr);
  for (std::size_t k = 0; k < n; ++k) {
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t*>(all.data() + at[k]);
    check(ucp_ep_create(ucx_->worker, &ep, &ucx_->peers[k]), "ucp_ep_create");
  }
  greet_every_peer(world);
}

// One message over every pair, before any of the run's: a transport that connects at the first
// message (UCX's TCP, or a wire-up a shared-memory endpoint still needs) does it here. No node's
// agent has started yet, so every message that arrives meanwhile is a Connect; the barrier keeps
// it so until every node has had all of its own.
void Transport::greet_every_peer(MPI_Comm world) {
  // Two sizes, as the run's messages come: a request's few bytes and a page (UCX takes a different
  // protocol for each, and each has its first-use costs).
  constexpr std::size_t kPageSized = 4096;
  for (int k = 0; k < size_; ++k) {
    if (k == rank_) continue;
    send(k, Tag::Connect, {});
    send(k, Tag::Connect, std::vector<std::byte>(kPageSized));
  }
  std::vector<int> came(static_cast<std::size_t>(size_), 0);
  for (int expected = 2 * (size_ - 1); expected > 0;) {
    std::optional<Message> m = poll();
    if (!m) {
      sched_yield();  // more nodes than cores: the peers need them to answer
      continue;
    }
    if (m->tag != Tag::Connect || m->from < 0 || m->from >= size_ || m->from == rank_ ||
        came[static_cast<std::size_t>(m->from)] == 2)
      throw std::runtime_error(
          fmt::format("UCX: an unexpected message from node {} while connecting", m->from));
    if (++came[static_cast<std::size_t>(m->from)] == 2) ++peers_reached_;
    --expected;
  }
  drain();
  check_mpi(MPI_Barrier(world), "MPI_Barrier");
}

Transport::~Transport() {
  {
    const std::lock_guard lock(mutex_);
    // Sends UCX has not completed by now go to a peer that is gone: cancel rather than hang.
    for (auto& [request, body] : in_flight_) {
      ucp_request_cancel(ucx_->worker, request);
      ucp_request_free(request);
    }
    in_flight_.clear();
  }
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
  if (to < 0 || to >= size_) throw std::runtime_error(fmt::format("a message to node {}, of {}", to, size_));
  const std::lock_guard lock(mutex_);
  ucp_request_param_t param{};
  void* request = ucp_tag_send_nbx(ucx_->peers[static_cast<std::size_t>(to)], body.data(), body.size(),
                                   tag_of(rank_, tag), &param);
  if (UCS_PTR_IS_ERR(request)) check(UCS_PTR_STATUS(request), "ucp_tag_send_nbx");
  ++sent_;
  bytes_ += body.size();
  if (request != nullptr) in_flight_.emplace_back(request, std::move(body));  // kept until sent
  complete_sends();
}

void Transport::complete_sends() {
  ucp_worker_progress(ucx_->worker);
  // Completed sends are usually the oldest; stop at the first one still in flight.
  while (!in_flight_.empty()) {
    const ucs_status_t status = ucp_request_check_status(in_flight_.front().first);
    if (status == UCS_INPROGRESS) break;
    ucp_request_free(in_flight_.front().first);
    in_flight_.pop_front();
    check(status, "a send");
  }
}

std::optional<Message> Transport::poll() {
  const std::lock_guard lock(mutex_);
  complete_sends();
  ucp_tag_recv_info_t info{};
  ucp_tag_message_h handle = ucp_tag_probe_nb(ucx_->worker, 0, 0, 1, &info);
  if (handle == nullptr) return std::nullopt;
  Message m;
  m.from = static_cast<int>(info.sender_tag >> 32U);
  m.tag = static_cast<Tag>(static_cast<std::uint32_t>(info.sender_tag & 0xffff'ffffU));
  m.body.resize(info.length);
  ucp_request_param_t param{};
  void* request = ucp_tag_msg_recv_nbx(ucx_->worker, m.body.data(), m.body.size(), handle, &param);
  if (UCS_PTR_IS_ERR(request)) check(UCS_PTR_STATUS(request), "ucp_tag_msg_recv_nbx");
  if (request != nullptr) {  // a large message: its data comes with progress
    while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(ucx_->worker);
    const ucs_status_t status = ucp_request_check_status(request);
    ucp_request_free(request);
    check(status, "a receive");
  }
  return m;
}

void Transport::wait_for_traffic(int timeout_ms) {
  {
    const std::lock_guard lock(mutex_);
    if (ucp_worker_progress(ucx_->worker) != 0) return;
    const ucs_status_t armed = ucp_worker_arm(ucx_->worker);
    if (armed == UCS_ERR_BUSY) return;  // something came meanwhile: take it first
    check(armed, "ucp_worker_arm");
  }
  std::array<epoll_event, 2> events{};
  const int n = ::epoll_wait(ucx_->epoll_fd, events.data(), static_cast<int>(events.size()), timeout_ms);
  for (int k = 0; k < n; ++k) {
    if (events[static_cast<std::size_t>(k)].data.fd != ucx_->wake_fd) continue;
    std::uint64_t count = 0;
    (void)::read(ucx_->wake_fd, &count, sizeof count);
  }
}

void Transport::wake() {
  const std::uint64_t one = 1;
  (void)::write(ucx_->wake_fd, &one, sizeof one);
}

void Transport::drain() {
  const std::lock_guard lock(mutex_);
  while (!in_flight_.empty()) complete_sends();
}

}  // namespace ncp2::real
