// Compiled as C++17 (see CMakeLists.txt): LEMON 1.3's headers use std::allocator
// members removed in C++20.
#include "mechanisms/matching.h"

#include <lemon/list_graph.h>
#include <lemon/matching.h>

#include <cstdio>
#include <cstdlib>

namespace schedkit {

std::vector<int> MaxWeightMatching(int num_nodes, const std::vector<WeightedEdge>& edges) {
  std::vector<int> mate(num_nodes, -1);
  if (num_nodes < 2) return mate;
  // The graph is built whole before its weight map exists: a map made first would grow
  // with every edge added, and reserving the nodes and edges spares the lists' regrowth.
  lemon::ListGraph g;
  g.reserveNode(num_nodes);
  g.reserveEdge(static_cast<int>(edges.size()));
  std::vector<lemon::ListGraph::Node> nodes;
  nodes.reserve(num_nodes);
  for (int i = 0; i < num_nodes; ++i) nodes.push_back(g.addNode());
  std::vector<std::pair<lemon::ListGraph::Edge, double>> added;
  added.reserve(edges.size());
  for (const WeightedEdge& e : edges) {
    if (e.u < 0 || e.v < 0 || e.u >= num_nodes || e.v >= num_nodes || e.u == e.v) {
      std::fprintf(stderr, "schedkit: MaxWeightMatching: bad edge (%d, %d)\n", e.u, e.v);
      std::abort();
    }
    if (!(e.weight > 0)) continue;
    added.emplace_back(g.addEdge(nodes[e.u], nodes[e.v]), e.weight);
  }
  if (added.empty()) return mate;
  lemon::ListGraph::EdgeMap<double> weight(g);
  for (const auto& [edge, w] : added) weight[edge] = w;
  lemon::MaxWeightedMatching<lemon::ListGraph, lemon::ListGraph::EdgeMap<double>> matching(g, weight);
  matching.run();
  for (int i = 0; i < num_nodes; ++i) {
    const lemon::ListGraph::Node m = matching.mate(nodes[i]);
    if (m != lemon::INVALID) mate[i] = g.id(m);
  }
  return mate;
}

}  // namespace schedkit
