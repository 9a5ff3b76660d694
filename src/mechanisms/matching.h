// Maximum-weight matching on a general (non-bipartite) graph, the blossom algorithm
// Muri uses to pair interleaving groups. Backed by LEMON's MaxWeightedMatching (exact
// for real weights); LEMON stays inside matching.cc, which is compiled as C++17.
#ifndef SCHEDKIT_MECHANISMS_MATCHING_H_
#define SCHEDKIT_MECHANISMS_MATCHING_H_

#include <memory>
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
// blossom returns; --compat muri uses MuriBlossomMatching, muri_matching.h). With the
// edges grouped by u in ascending order (as kind_matching.cc lists them) it is the one
// LEMON returns on a ListGraph built in the edges' order, which schedkit's recorded
// outputs depend on: keep it so (test Matching.RunsAsOnAListGraph).
// REQUIRES: 0 <= u, v < num_nodes, u != v.
std::vector<int> MaxWeightMatching(int num_nodes, const std::vector<WeightedEdge>& edges);

// MaxWeightMatching for callers that match many graphs, one after another: LEMON's graph,
// maps and heaps are kept between calls instead of allocated for each (a few dozen
// allocations; most of the cost of a 16-node graph). Match returns exactly what
// MaxWeightMatching returns for the same arguments, whatever was matched before.
// A copy starts with an empty workspace. Not thread-safe: one matcher per thread.
class MaxWeightMatcher {
 public:
  MaxWeightMatcher();
  ~MaxWeightMatcher();
  MaxWeightMatcher(const MaxWeightMatcher& other);
  MaxWeightMatcher& operator=(const MaxWeightMatcher& other);

  std::vector<int> Match(int num_nodes, const std::vector<WeightedEdge>& edges);

 private:
  struct Workspace;
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_MATCHING_H_
