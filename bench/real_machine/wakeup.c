/* How a real node's server can wait for a message (issue 42 item 1): the candidates measured on
 * this host, two MPI ranks. Rank 0 asks (8 bytes) after leaving rank 1 idle for IDLE µs and
 * times the round trip; rank 1 answers, waiting its way:
 *   spin      MPI_Iprobe + sched_yield (the agent's service thread while its program waits)
 *   sleep     MPI_Iprobe + nanosleep growing 1..50 µs (the agent's idle path)
 *   blocking  MPI_Recv (Open MPI's blocking receive)
 *   ucx       a UCX worker's event fd: ucp_worker_arm + epoll_wait (the agents' messages over UCX)
 * Prints per strategy and idle time the median and 90th percentile round trip, and rank 1's CPU
 * time while it waited one idle second (percent of a core).
 * Build: mpicc -O2 -o wakeup wakeup.c -lucp -lucs; run: mpirun -np 2 ./wakeup [ROUNDS]
 * (bench/real-machine-wakeup does both). */
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <ucp/api/ucp.h>

enum { SPIN, SLEEP, BLOCKING, UCX, STRATEGIES };
static const char* names[STRATEGIES] = {"spin", "sleep", "blocking", "ucx"};

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void idle_for(double us) { /* the asker waits without a core (the answerer may need it) */
  struct timespec t = {(time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1e3)};
  nanosleep(&t, NULL);
}

static double cpu_us(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
         (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* ---- UCX: one worker per rank, one endpoint to the other, tag messages */
static ucp_context_h ctx;
static ucp_worker_h worker;
static ucp_ep_h peer;
static int efd, epfd;

static void ucx_setup(int rank) {
  ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP};
  ucp_config_t* cfg;
  if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK || ucp_init(&p, cfg, &ctx) != UCS_OK) {
    fprintf(stderr, "wakeup: UCX does not start\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ucp_config_release(cfg);
  ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                            .thread_mode = UCS_THREAD_MODE_SINGLE};
  if (ucp_worker_create(ctx, &wp, &worker) != UCS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  ucp_address_t* mine;
  size_t len;
  ucp_worker_get_address(worker, &mine, &len);
  uint64_t lens[2], l = len;
  MPI_Allgather(&l, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  char* other = malloc(lens[1 - rank]);
  MPI_Sendrecv(mine, (int)len, MPI_BYTE, 1 - rank, 7, other, (int)lens[1 - rank], MPI_BYTE, 1 - rank, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = (ucp_address_t*)other};
  if (ucp_ep_create(worker, &ep, &peer) != UCS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  ucp_worker_release_address(worker, mine);
  ucp_worker_get_efd(worker, &efd);
  epfd = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev);
}

/* Waits for `req` (a request pointer or an immediate status): spinning on progress, or asleep on
 * the worker's event fd between progress calls. */
static void ucx_wait(void* req, int asleep) {
  if (req == NULL) return;
  if (UCS_PTR_IS_ERR(req)) MPI_Abort(MPI_COMM_WORLD, 1);
  while (ucp_request_check_status(req) == UCS_INPROGRESS) {
    if (ucp_worker_progress(worker)) continue;
    if (!asleep) continue;
    if (ucp_worker_arm(worker) == UCS_ERR_BUSY) continue;
    struct epoll_event ev;
    epoll_wait(epfd, &ev, 1, -1);
  }
  ucp_request_free(req);
}

static void ucx_send(uint64_t* v) {
  ucp_request_param_t p = {0};
  ucx_wait(ucp_tag_send_nbx(peer, v, sizeof *v, 1, &p), 0);
}

static void ucx_recv(uint64_t* v, int asleep) {
  ucp_request_param_t p = {0};
  ucx_wait(ucp_tag_recv_nbx(worker, v, sizeof *v, 1, ~(ucp_tag_t)0, &p), asleep);
}

/* ---- MPI strategies, the answering side */
static void mpi_wait_message(int strategy) {
  if (strategy == BLOCKING) return; /* MPI_Recv waits itself */
  long step = 0;
  for (;;) {
    int flag = 0;
    MPI_Iprobe(0, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    if (strategy == SPIN) {
      sched_yield();
      continue;
    }
    step = step == 0 ? 1000 : (step * 2 > 50000 ? 50000 : step * 2);
    struct timespec t = {0, step};
    nanosleep(&t, NULL);
  }
}

static void answer(int strategy) {
  uint64_t v;
  if (strategy == UCX) {
    ucx_recv(&v, 1);
    ucx_send(&v);
    return;
  }
  mpi_wait_message(strategy);
  MPI_Recv(&v, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&v, 1, MPI_UINT64_T, 0, 2, MPI_COMM_WORLD);
}

static double ask(int strategy, uint64_t v) {
  const double t0 = now_us();
  if (strategy == UCX) {
    ucx_send(&v);
    ucx_recv(&v, 0);
  } else {
    MPI_Send(&v, 1, MPI_UINT64_T, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(&v, 1, MPI_UINT64_T, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return now_us() - t0;
}

int main(int argc, char** argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "wakeup: run on 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  const int rounds = argc > 1 ? atoi(argv[1]) : 31;
  const double idles[] = {0, 1000, 10000};
  ucx_setup(rank);
  double* rtt = malloc((size_t)rounds * sizeof *rtt);
  if (rank == 0)
    printf("%-9s %9s %12s %12s %14s\n", "strategy", "idle us", "median us", "p90 us", "idle CPU %");
  for (int s = 0; s < STRATEGIES; ++s) {
    for (int k = 0; k < 3; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int r = 0; r < rounds; ++r) {
        if (rank == 0) {
          idle_for(idles[k]);
          rtt[r] = ask(s, (uint64_t)r);
        } else {
          answer(s);
        }
      }
      if (rank == 0) {
        qsort(rtt, (size_t)rounds, sizeof *rtt, compare);
        printf("%-9s %9.0f %12.1f %12.1f", names[s], idles[k], rtt[rounds / 2],
               rtt[(9 * rounds + 9) / 10 - 1]);
      }
      if (k < 2) {
        if (rank == 0) printf("\n");
        continue;
      }
      /* One idle second: rank 1's CPU while it waits for the next message. */
      double cpu = 0;
      if (rank == 0) {
        idle_for(1e6);
        ask(s, 0);
      } else {
        const double c0 = cpu_us(), t0 = now_us();
        answer(s);
        cpu = 100 * (cpu_us() - c0) / (now_us() - t0);
        MPI_Send(&cpu, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
      }
      if (rank == 0) {
        MPI_Recv(&cpu, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf(" %13.1f\n", cpu);
      }
    }
  }
  free(rtt);
  ucp_ep_destroy(peer);
  ucp_worker_destroy(worker);
  ucp_cleanup(ctx);
  MPI_Finalize();
  return 0;
}
