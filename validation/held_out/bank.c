/* A bank: transfers between accounts under two locks each, audits under barriers.
 *
 * `accounts` accounts (a balance and a count of the transfers that touched it) lie side by side
 * in shared memory; `locks` locks guard them in contiguous groups (account a under lock
 * a * locks / accounts: one lock per account when locks = accounts). Every node runs `transfers`
 * transfers, the i-th of node p between two different accounts and of an amount all drawn from a
 * hash of (p, i). A transfer takes the two accounts' locks in a fixed order, the lower id first
 * (only one when both accounts share it), so two transfers never wait for each other in a
 * circle; it moves the amount and counts the transfer on both accounts, then releases. Balances
 * may go below zero (an overdraft): every transfer is an addition to two balances, so the final
 * state does not depend on the order the nodes' transfers interleave in. The transfers come in
 * 4 rounds; after each, every node stops at a barrier, node 0 audits the bank (the total money as
 * at the start, every transfer counted twice) and a second barrier lets them go on. After the last
 * round node 0 replays every node's transfers sequentially in private memory and checks every
 * account's balance and count against it.
 *
 * Arguments: accounts transfers locks check (default 4096 4000 1024 1; transfers per node;
 * check 0 skips node 0's replay, not the audits). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmk.h>

#define ROUNDS 4

struct account {
  int64_t balance;
  uint32_t transfers; /* transfers from or to this account */
  uint32_t unused;
};
struct bank {
  int accounts, locks;
  struct account *account; /* accounts */
};
static struct bank *b; /* shared; node 0 allocates, Tmk_distribute gives the pointer */

static uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x21f0aaadu;
  h ^= h >> 15;
  h *= 0x735a2d97u;
  h ^= h >> 15;
  return h;
}

static int64_t opening_balance(int account) { return 1000 + (int64_t)(mix((uint32_t)account + 77u) % 9000u); }

struct transfer {
  int from, to;
  int64_t amount;
};

/* Node `node`'s transfer i, the same wherever it is computed. */
static struct transfer transfer_of(uint32_t node, uint32_t i, int accounts) {
  const uint32_t h = mix(node * 0x9e3779b1u ^ mix(i + 0x51ed27u));
  const uint32_t g = mix(h + 0x2545f491u);
  struct transfer t;
  t.from = (int)(h % (uint32_t)accounts);
  t.to = (t.from + 1 + (int)(g % (uint32_t)(accounts - 1))) % accounts;
  t.amount = 1 + (int64_t)(mix(g) % 500u);
  return t;
}

static void move_money(struct account *account, struct transfer t) {
  account[t.from].balance -= t.amount;
  account[t.to].balance += t.amount;
  ++account[t.from].transfers;
  ++account[t.to].transfers;
}

static unsigned lock_of(int account) { return (unsigned)((int64_t)account * b->locks / b->accounts); }

static void run_transfer(struct transfer t) {
  const unsigned x = lock_of(t.from), y = lock_of(t.to);
  const unsigned first = x < y ? x : y, second = x < y ? y : x;
  Tmk_lock_acquire(first);
  if (second != first) Tmk_lock_acquire(second);
  move_money(b->account, t);
  if (second != first) Tmk_lock_release(second);
  Tmk_lock_release(first);
}

/* Node 0, while the others wait at a barrier: the money and the transfers of `done` per node. */
static int audit(int64_t opening_total, int64_t done) {
  int64_t money = 0, touched = 0;
  for (int a = 0; a < b->accounts; ++a) {
    money += b->account[a].balance;
    touched += b->account[a].transfers;
  }
  const int ok = money == opening_total && touched == 2 * done * (int64_t)Tmk_nprocs;
  if (!ok)
    fprintf(stderr, "bank: audit after %lld transfers per node: %lld in the accounts (%lld at the start), %lld "
                    "transfers counted (%lld expected)\n",
            (long long)done, (long long)money, (long long)opening_total, (long long)touched,
            (long long)(2 * done * (int64_t)Tmk_nprocs));
  return ok;
}

/* Node 0: every node's transfers replayed in private memory, account by account against the bank. */
static int check(int transfers) {
  const int n = b->accounts;
  struct account *expected = calloc((size_t)n, sizeof *expected);
  if (!expected) return 0;
  for (int a = 0; a < n; ++a) expected[a].balance = opening_balance(a);
  for (unsigned p = 0; p < Tmk_nprocs; ++p)
    for (int i = 0; i < transfers; ++i) move_money(expected, transfer_of(p, (uint32_t)i, n));
  int wrong = 0;
  for (int a = 0; a < n; ++a)
    wrong += expected[a].balance != b->account[a].balance || expected[a].transfers != b->account[a].transfers;
  free(expected);
  return wrong == 0;
}

/* Argument `index`, or `fallback` when absent; 0 when it is not a whole number in [low, high]. */
static int argument(int argc, char **argv, int index, long fallback, long low, long high, long *value) {
  *value = fallback;
  if (argc <= index) return 1;
  char *end = NULL;
  *value = strtol(argv[index], &end, 10);
  return end != argv[index] && *end == '\0' && *value >= low && *value <= high;
}

/* Node 0: the bank at its opening; returns the money in it. */
static int64_t open_bank(int accounts, int locks) {
  b = Tmk_malloc(sizeof *b);
  b->accounts = accounts;
  b->locks = locks;
  b->account = Tmk_malloc((size_t)accounts * sizeof *b->account);
  int64_t total = 0;
  for (int a = 0; a < accounts; ++a) {
    b->account[a] = (struct account){opening_balance(a), 0, 0};
    total += b->account[a].balance;
  }
  Tmk_distribute(&b, sizeof b);
  return total;
}

int main(int argc, char **argv) {
  Tmk_startup(argc, argv);
  long accounts = 0, transfers = 0, locks = 0, check_result = 0;
  if (!argument(argc, argv, 1, 4096, 2, 1 << 22, &accounts) ||
      !argument(argc, argv, 2, 4000, 0, 1 << 24, &transfers) || !argument(argc, argv, 3, 1024, 1, 1 << 20, &locks) ||
      !argument(argc, argv, 4, 1, 0, 1, &check_result) || locks > accounts) {
    if (Tmk_proc_id == 0)
      fprintf(stderr, "usage: bank [2 <= accounts <= 4194304] [0 <= transfers <= 16777216, per node] "
                      "[1 <= locks <= accounts, at most 1048576] [check 0|1]\n");
    Tmk_exit(2);
  }
  int64_t opening_total = 0; /* known to node 0 only */
  if (Tmk_proc_id == 0) opening_total = open_bank((int)accounts, (int)locks);
  Tmk_barrier(0);
  int audits_failed = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    const int first = (int)(transfers * round / ROUNDS), last = (int)(transfers * (round + 1) / ROUNDS);
    TMK_SCOPE_BEGIN("transfers");
    for (int i = first; i < last; ++i) run_transfer(transfer_of(Tmk_proc_id, (uint32_t)i, (int)accounts));
    TMK_SCOPE_END();
    Tmk_barrier(1);
    if (Tmk_proc_id == 0) {
      TMK_SCOPE_BEGIN("audit");
      audits_failed += !audit(opening_total, last);
      TMK_SCOPE_END();
    }
    Tmk_barrier(2);
  }
  int status = 0;
  if (Tmk_proc_id == 0) {
    const int ok = audits_failed == 0 && (!check_result || check((int)transfers));
    printf("bank: %ld accounts under %ld locks, %ld transfers per node on %u node(s), %d audits%s: %s\n", accounts,
           locks, transfers, Tmk_nprocs, ROUNDS, check_result ? "" : " (no replay)",
           ok ? (check_result ? "verified" : "audited") : "WRONG");
    status = ok ? 0 : 1;
  }
  Tmk_exit(status);
}
