// Maximum-weight matching on a general (non-bipartite) graph, the blossom algorithm
// Muri uses to pair interleaving groups. Backed by LEMON's MaxWeightedMatching (exact
// for real weights); LEMON stays inside matching.cc, which is compiled as C++17.
#ifndef SCHEDKIT_MECHANISMS_MATCHING_H_
#define SCHEDKIT_MECHANISMS_MATCHING_H_

#include <vector>

namespace schedkit {

struct WeightedEdge {
  int u = 0;
  int v = 0;
  double weight = 0;
};

// Returns mate[i] for i in [0, num_nodes): the node matched with i, or -1. The matching
// maximises the total weight of its edges (not the number of edges); edges with weight
// <= 0 are never useful and are ignored. Among matchings of equal weight, which one is
// returned is deterministic but unspecified (it need not be the one Muri's hand-written
// blossom returns; --compat muri uses MuriBlossomMatching, muri_matching.h).
// REQUIRES: 0 <= u, v < num_nodes, u != v.
std::vector<int> MaxWeightMatching(int num_nodes, const std::vector<WeightedEdge>& edges);

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_MATCHING_H_
