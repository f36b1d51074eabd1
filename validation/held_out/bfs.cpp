// Level-synchronous breadth-first search in C++: a frontier per level in shared memory, candidates
// handed to their owners through per-node slots, two barriers per level.
//
// The graph is a deterministic random directed graph of `vertices` vertices: vertex v has 1 to
// 2 * degree - 1 out-edges (degree on average), most to vertices a little after it, one in eight
// anywhere, all from a hash of (v, j). Node p owns a contiguous block of the vertices: it writes
// their adjacency into shared memory, and only it ever writes their distances. A level has two
// phases. Expand: the frontier (each owner's part of it, in shared memory) is split evenly over the
// nodes; each node reads its share's adjacency and, for every neighbour whose distance is still
// unknown, puts it once into its outgoing slot for the neighbour's owner (an N x N array of slots
// in shared memory). Barrier. Claim: each node reads the slots addressed to it, gives every
// vertex not yet reached the next distance and makes it its part of the next frontier. Barrier;
// the search ends when no node has a frontier. Node 0 then checks every distance against a
// sequential BFS in private memory.
//
// Arguments: vertices degree check (default 200000 8 1; check 0 skips node 0's check).
#include <tmk.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <span>
#include <vector>

namespace {

constexpr int32_t kUnreached = -1;

uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

// The graph, as every node and the check generate it.
class Graph {
 public:
  Graph(int32_t vertices, int32_t degree) : vertices_(vertices), max_degree_(2 * degree - 1) {}
  [[nodiscard]] int32_t vertices() const { return vertices_; }
  [[nodiscard]] int32_t max_degree() const { return max_degree_; }
  [[nodiscard]] int32_t degree_of(int32_t v) const {
    return 1 + static_cast<int32_t>(mix(static_cast<uint32_t>(v) * 0x9e3779b1u) %
                                    static_cast<uint32_t>(max_degree_));
  }
  [[nodiscard]] int32_t neighbour(int32_t v, int32_t j) const {
    const uint32_t h =
        mix(static_cast<uint32_t>(v) * 0x85ebca6bu + static_cast<uint32_t>(j) * 0xc2b2ae35u + 1u);
    const auto n = static_cast<uint32_t>(vertices_);
    if ((h & 7u) == 0) return static_cast<int32_t>((h >> 3) % n);
    return static_cast<int32_t>((static_cast<uint32_t>(v) + 1u + (h >> 3) % 64u) % n);
  }

 private:
  int32_t vertices_;
  int32_t max_degree_;
};

// Which node owns which vertices: contiguous blocks.
class Partition {
 public:
  Partition(int32_t vertices, int32_t nodes) : vertices_(vertices), nodes_(nodes) {}
  [[nodiscard]] int32_t begin(int32_t node) const {
    return static_cast<int32_t>(int64_t{vertices_} * node / nodes_);
  }
  [[nodiscard]] int32_t end(int32_t node) const { return begin(node + 1); }
  [[nodiscard]] int32_t owner(int32_t v) const {
    int32_t p = static_cast<int32_t>(int64_t{v} * nodes_ / vertices_);
    while (v < begin(p)) --p;  // the integer division may round past a block's edge
    while (v >= end(p)) ++p;
    return p;
  }

 private:
  int32_t vertices_;
  int32_t nodes_;
};

// What lives in shared memory (one allocation per array; the same addresses on every node).
struct Shared {
  int32_t* distance;       // vertices; written by the vertex's owner only
  int32_t* degree;         // vertices
  int32_t* adjacency;      // vertices x max_degree
  int32_t* frontier;       // vertices: owner p's part at [begin(p), begin(p) + frontier_size[p])
  int32_t* frontier_size;  // nodes
  int32_t* slots;          // nodes x vertices: from p to q at p * vertices + begin(q)
  int32_t* slot_size;      // nodes x nodes
};
Shared* shared = nullptr;  // node 0 allocates, Tmk_distribute gives the pointer

template <typename T>
T* shared_array(size_t count) {
  return static_cast<T*>(Tmk_malloc(count * sizeof(T)));
}

// One node's part of the search; its private bookkeeping in std::vectors.
class BfsNode {
 public:
  BfsNode(const Graph& graph, int32_t me, int32_t nodes)
      : graph_(graph),
        part_(graph.vertices(), nodes),
        me_(me),
        nodes_(nodes),
        sent_at_level_(static_cast<size_t>(graph.vertices()), -1),
        outgoing_(static_cast<size_t>(nodes)) {}

  void build(int32_t source) {
    TMK_SCOPE("build");
    const int32_t width = graph_.max_degree();
    for (int32_t v = part_.begin(me_); v < part_.end(me_); ++v) {
      shared->degree[v] = graph_.degree_of(v);
      for (int32_t j = 0; j < shared->degree[v]; ++j)
        shared->adjacency[int64_t{v} * width + j] = graph_.neighbour(v, j);
      shared->distance[v] = v == source ? 0 : kUnreached;
    }
    const bool mine = part_.owner(source) == me_;
    if (mine) shared->frontier[part_.begin(me_)] = source;
    shared->frontier_size[me_] = mine ? 1 : 0;
  }

  // Runs the levels; returns how many there were.
  int32_t search() {
    int32_t level = 0;
    for (; frontier_total() > 0; ++level) {
      expand(level);
      Tmk_barrier(1);
      claim(level + 1);
      Tmk_barrier(2);
    }
    return level;
  }

 private:
  [[nodiscard]] int32_t frontier_total() const {
    int32_t total = 0;
    for (int32_t p = 0; p < nodes_; ++p) total += shared->frontier_size[p];
    return total;
  }

  // The i-th vertex of the frontier, the owners' parts one after the other.
  [[nodiscard]] int32_t frontier_at(int32_t i) const {
    int32_t p = 0;
    while (i >= shared->frontier_size[p]) i -= shared->frontier_size[p++];
    return shared->frontier[part_.begin(p) + i];
  }

  void expand(int32_t level) {
    TMK_SCOPE("expand");
    for (auto& out : outgoing_) out.clear();
    const int64_t total = frontier_total();
    const auto first = static_cast<int32_t>(total * me_ / nodes_);
    const auto last = static_cast<int32_t>(total * (me_ + 1) / nodes_);
    const int32_t width = graph_.max_degree();
    for (int32_t i = first; i < last; ++i) {
      const int32_t v = frontier_at(i);
      const std::span<const int32_t> edges(&shared->adjacency[int64_t{v} * width],
                                           static_cast<size_t>(shared->degree[v]));
      for (const int32_t w : edges) {
        auto& sent = sent_at_level_[static_cast<size_t>(w)];
        if (sent == level || shared->distance[w] != kUnreached) continue;
        sent = level;
        outgoing_[static_cast<size_t>(part_.owner(w))].push_back(w);
      }
    }
    for (int32_t q = 0; q < nodes_; ++q) {
      const auto& out = outgoing_[static_cast<size_t>(q)];
      if (!out.empty())
        std::memcpy(&shared->slots[int64_t{me_} * graph_.vertices() + part_.begin(q)], out.data(),
                    out.size() * sizeof(int32_t));
      shared->slot_size[me_ * nodes_ + q] = static_cast<int32_t>(out.size());
    }
  }

  void claim(int32_t distance) {
    TMK_SCOPE("claim");
    int32_t size = 0;
    for (int32_t p = 0; p < nodes_; ++p) {
      const int32_t* from = &shared->slots[int64_t{p} * graph_.vertices() + part_.begin(me_)];
      for (int32_t k = 0; k < shared->slot_size[p * nodes_ + me_]; ++k) {
        const int32_t w = from[k];
        if (shared->distance[w] != kUnreached) continue;
        shared->distance[w] = distance;
        shared->frontier[part_.begin(me_) + size++] = w;
      }
    }
    shared->frontier_size[me_] = size;
  }

  const Graph& graph_;
  Partition part_;
  int32_t me_;
  int32_t nodes_;
  std::vector<int32_t> sent_at_level_;          // the level at which this node last sent a vertex
  std::vector<std::vector<int32_t>> outgoing_;  // this level's candidates, by owner
};

std::vector<int32_t> sequential_bfs(const Graph& graph, int32_t source) {
  std::vector<int32_t> distance(static_cast<size_t>(graph.vertices()), kUnreached);
  std::deque<int32_t> queue{source};
  distance[static_cast<size_t>(source)] = 0;
  while (!queue.empty()) {
    const int32_t v = queue.front();
    queue.pop_front();
    for (int32_t j = 0; j < graph.degree_of(v); ++j) {
      const int32_t w = graph.neighbour(v, j);
      if (distance[static_cast<size_t>(w)] != kUnreached) continue;
      distance[static_cast<size_t>(w)] = distance[static_cast<size_t>(v)] + 1;
      queue.push_back(w);
    }
  }
  return distance;
}

void allocate(const Graph& graph, int32_t nodes) {
  const auto v = static_cast<size_t>(graph.vertices());
  const auto p = static_cast<size_t>(nodes);
  shared = shared_array<Shared>(1);
  *shared = Shared{.distance = shared_array<int32_t>(v),
                   .degree = shared_array<int32_t>(v),
                   .adjacency = shared_array<int32_t>(v * static_cast<size_t>(graph.max_degree())),
                   .frontier = shared_array<int32_t>(v),
                   .frontier_size = shared_array<int32_t>(p),
                   .slots = shared_array<int32_t>(p * v),
                   .slot_size = shared_array<int32_t>(p * p)};
  Tmk_distribute(&shared, sizeof shared);
}

// An argument, or `fallback` when absent; false when it is not a whole number in [low, high].
bool argument(int argc, char** argv, int index, long fallback, long low, long high, long& value) {
  value = fallback;
  if (argc <= index) return true;
  char* end = nullptr;
  value = std::strtol(argv[index], &end, 10);
  return end != argv[index] && *end == '\0' && value >= low && value <= high;
}

}  // namespace

int main(int argc, char** argv) {
  Tmk_startup(argc, argv);
  long vertices = 0, degree = 0, check = 0;
  if (!argument(argc, argv, 1, 200000, 1, 4000000, vertices) || !argument(argc, argv, 2, 8, 1, 64, degree) ||
      !argument(argc, argv, 3, 1, 0, 1, check) || vertices < static_cast<long>(Tmk_nprocs)) {
    if (Tmk_proc_id == 0)
      std::fprintf(
          stderr,
          "usage: bfs [1 <= vertices <= 4000000, at least one per node] [1 <= degree <= 64] [check 0|1]\n");
    Tmk_exit(2);
  }
  const Graph graph(static_cast<int32_t>(vertices), static_cast<int32_t>(degree));
  const auto me = static_cast<int32_t>(Tmk_proc_id);
  const auto nodes = static_cast<int32_t>(Tmk_nprocs);
  if (me == 0) allocate(graph, nodes);
  Tmk_barrier(0);
  BfsNode node(graph, me, nodes);
  node.build(0);
  Tmk_barrier(0);
  const int32_t levels = node.search();
  int status = 0;
  if (me == 0) {
    const std::span<const int32_t> found(shared->distance, static_cast<size_t>(vertices));
    int64_t reached = 0;
    for (const int32_t d : found) reached += d != kUnreached;
    if (check != 0) {
      const std::vector<int32_t> expected = sequential_bfs(graph, 0);
      const bool ok = std::equal(found.begin(), found.end(), expected.begin());
      std::printf("bfs: %ld vertices, degree %ld on %d node(s): %lld reached in %d levels: %s\n", vertices,
                  degree, nodes, static_cast<long long>(reached), levels, ok ? "verified" : "WRONG");
      status = ok ? 0 : 1;
    } else {
      std::printf("bfs: %ld vertices, degree %ld on %d node(s): %lld reached in %d levels: not checked\n",
                  vertices, degree, nodes, static_cast<long long>(reached), levels);
    }
  }
  Tmk_exit(status);
}
