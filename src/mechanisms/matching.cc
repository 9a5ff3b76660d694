// Compiled as C++17 (see CMakeLists.txt): LEMON 1.3's headers use std::allocator
// members removed in C++20.
#include "mechanisms/matching.h"

#include <lemon/smart_graph.h>
#include <lemon/matching.h>

#include <cstdio>
#include <cstdlib>

namespace schedkit {

// A SmartGraph, not a ListGraph: its iterators step through plain arrays rather than
// linked lists, which took ~3 % of Muri-S (docs/performance.md). Built from scratch, the
// two number nodes, edges and arcs alike and keep the same incidence lists; their NodeIt
// and EdgeIt agree when the edges come grouped by u in ascending order (ListGraph's EdgeIt
// visits u descending, each u's edges newest first; SmartGraph's visits edges newest
// first). LEMON's matching reads ArcIt only to reset its maps, so on such input it runs
// step for step as on a ListGraph, tied choices included: what schedkit's outputs before
// this change were made with. Test Matching.RunsAsOnAListGraph checks it.
using Graph = lemon::SmartGraph;
using WeightMap = Graph::EdgeMap<double>;

// The graph, its weight map and LEMON's matcher, whose maps (a few dozen, attached to
// the graph) and heaps keep their storage from one Match to the next.
struct MaxWeightMatcher::Workspace {
  Graph graph;
  WeightMap weight{graph};
  lemon::MaxWeightedMatching<Graph, WeightMap> matching{graph, weight};
  std::vector<Graph::Node> nodes;
  std::vector<Graph::Edge> added;
};

MaxWeightMatcher::MaxWeightMatcher() = default;
MaxWeightMatcher::~MaxWeightMatcher() = default;
MaxWeightMatcher::MaxWeightMatcher(const MaxWeightMatcher&) {}
MaxWeightMatcher& MaxWeightMatcher::operator=(const MaxWeightMatcher&) { return *this; }

std::vector<int> MaxWeightMatcher::Match(int num_nodes, const std::vector<WeightedEdge>& edges) {
  std::vector<int> mate(num_nodes, -1);
  if (num_nodes < 2) return mate;
  for (const WeightedEdge& e : edges) {
    if (e.u < 0 || e.v < 0 || e.u >= num_nodes || e.v >= num_nodes || e.u == e.v) {
      std::fprintf(stderr, "schedkit: MaxWeightMatching: bad edge (%d, %d)\n", e.u, e.v);
      std::abort();
    }
  }
  if (workspace_ == nullptr) workspace_ = std::make_unique<Workspace>();
  Workspace& ws = *workspace_;
  Graph& g = ws.graph;
  // Cleared, a SmartGraph hands out ids from 0 again and iterates as a new one, so LEMON
  // sees the graph a fresh one would be (its answer among tied matchings depends on it).
  // The nodes and edges go in through SmartGraphBase, which skips telling the attached maps
  // of each one (for an edge, through a two-arc vector allocated per edge); the maps are
  // then rebuilt once at the new size, keeping their storage.
  g.clear();
  g.reserveNode(num_nodes);
  g.reserveEdge(static_cast<int>(edges.size()));
  lemon::SmartGraphBase& unobserved = g;
  ws.nodes.clear();
  for (int i = 0; i < num_nodes; ++i) ws.nodes.push_back(unobserved.addNode());
  ws.added.clear();
  for (const WeightedEdge& e : edges) {
    if (e.weight > 0) ws.added.push_back(unobserved.addEdge(ws.nodes[e.u], ws.nodes[e.v]));
  }
  g.notifier(Graph::Node()).build();
  g.notifier(Graph::Edge()).build();
  g.notifier(Graph::Arc()).build();
  if (ws.added.empty()) return mate;
  size_t next = 0;
  for (const WeightedEdge& e : edges) {
    if (e.weight > 0) ws.weight[ws.added[next++]] = e.weight;
  }
  ws.matching.run();
  for (int i = 0; i < num_nodes; ++i) {
    const Graph::Node m = ws.matching.mate(ws.nodes[i]);
    if (m != lemon::INVALID) mate[i] = g.id(m);
  }
  return mate;
}

std::vector<int> MaxWeightMatching(int num_nodes, const std::vector<WeightedEdge>& edges) {
  return MaxWeightMatcher().Match(num_nodes, edges);
}

}  // namespace schedkit
