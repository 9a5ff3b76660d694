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
  lemon::ListGraph g;
  std::vector<lemon::ListGraph::Node> nodes;
  nodes.reserve(num_nodes);
  for (int i = 0; i < num_nodes; ++i) nodes.push_back(g.addNode());
  lemon::ListGraph::EdgeMap<double> weight(g);
  bool any = false;
  for (const WeightedEdge& e : edges) {
    if (e.u < 0 || e.v < 0 || e.u >= num_nodes || e.v >= num_nodes || e.u == e.v) {
      std::fprintf(stderr, "schedkit: MaxWeightMatching: bad edge (%d, %d)\n", e.u, e.v);
      std::abort();
    }
    if (!(e.weight > 0)) continue;
    weight[g.addEdge(nodes[e.u], nodes[e.v])] = e.weight;
    any = true;
  }
  if (!any) return mate;
  lemon::MaxWeightedMatching<lemon::ListGraph, lemon::ListGraph::EdgeMap<double>> matching(g, weight);
  matching.run();
  for (int i = 0; i < num_nodes; ++i) {
    const lemon::ListGraph::Node m = matching.mate(nodes[i]);
    if (m != lemon::INVALID) mate[i] = g.id(m);
  }
  return mate;
}

}  // namespace schedkit
