// Maximum-weight matching on a graph whose nodes come in a few kinds: the weight of an
// edge depends only on the kinds of its two ends. Muri's candidate sets are such graphs
// (jobs of one type are interchangeable, docs/interleaving.md): 64-128 nodes of about
// eight kinds at the busy events that cost the most.
//
// Such a matching is a b-matching of the kinds: choose pair counts x_ab >= 0 (x_aa pairs
// of one kind) with sum_b x_ab + 2 x_aa <= m_a, the number of nodes of kind a. Edmonds'
// description of the b-matching polytope (degree rows plus, for every set U of kinds
// with odd m(U), x(E[U]) <= (m(U) - 1) / 2) makes it a linear program whose optimal
// vertices are integral. It is solved with CLP (mechanisms/lp.h) by cutting planes: the
// degree rows first, then the odd-set rows the current solution violates, found by
// checking every set of kinds, until none is violated. Its size depends on the number of
// kinds, not of nodes; LEMON's blossom on the nodes (mechanisms/matching.h) is kept for
// graphs with many kinds or few nodes, where it is cheaper, and as the fallback should
// CLP not converge.
#ifndef SCHEDKIT_MECHANISMS_KIND_MATCHING_H_
#define SCHEDKIT_MECHANISMS_KIND_MATCHING_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace schedkit {

struct KindMatchingOptions {
  // The node blossom answers graphs with fewer nodes (it is cheaper than an LP there:
  // measured on Muri trace1's candidate sets, docs/performance.md) ...
  int min_nodes_for_lp = 32;
  // ... or more kinds (separation checks all 2^k sets of kinds). At most 30.
  int max_kinds_for_lp = 12;
};

struct KindMatchingStats {
  int lp_solves = 0;   // CLP solves (0: the node blossom answered).
  int cuts = 0;        // Odd-set rows added.
  bool fell_back = false;  // The LP did not converge to an integral optimum.
  bool reused = false;     // KindMatcher: an earlier optimal basis answered, no LP solved.
};

// Returns mate[i] for each node i (or -1). `kind[i]` in [0, num_kinds); `weight` is the
// num_kinds x num_kinds matrix (row-major) of edge weights between kinds, of which only
// the upper triangle (a <= b) is read; the diagonal is the weight between two nodes of
// the same kind; an entry <= 0 means no edge. The matching maximises the total weight
// (up to CLP's tolerances, about 1e-7 relative, when the LP is used). Which maximum
// matching is returned is deterministic: among the nodes of a kind, the pairs are given
// to the lowest-numbered nodes first.
std::vector<int> MaxWeightMatchingByKind(const std::vector<int>& kind, int num_kinds,
                                         const std::vector<double>& weight,
                                         const KindMatchingOptions& options = {},
                                         KindMatchingStats* stats = nullptr);

// MaxWeightMatchingByKind with a memory of the optimal bases it found, for callers that
// match many graphs with the same kinds and weights but other node counts (Muri: the queue
// changes by a job or two per event). Returns exactly what MaxWeightMatchingByKind returns.
//
// After an LP solve whose optimum is certified unique (every nonbasic pair count's reduced
// cost and every tight row's dual at least kUniqueMargin from 0, so that the basis is the
// only optimal one), the basis is remembered under the weights. A later graph with the same
// weights and the same columns first tries the remembered bases: with the new counts as
// right-hand sides it solves the basis' square system (at most 12 + cuts unknowns; its
// inverse is kept with the basis: only the right-hand side depends on the counts); if the
// result is integral and within every bound and degree row, and every remembered odd-set
// row still has an odd node count, then the same duals prove it the unique optimum of a
// relaxation of the b-matching polytope that contains it, hence the unique maximum-weight
// b-matching, which is also what the LP from scratch converges to. Otherwise the LP is
// solved as in MaxWeightMatchingByKind. The node blossom branch is unchanged (its choice
// among tied matchings is LEMON's).
class KindMatcher {
 public:
  explicit KindMatcher(const KindMatchingOptions& options = {});
  ~KindMatcher();
  KindMatcher(const KindMatcher& other);  // Copies the memory (policies are cloned).
  KindMatcher& operator=(const KindMatcher& other);

  std::vector<int> Match(const std::vector<int>& kind, int num_kinds,
                         const std::vector<double>& weight, KindMatchingStats* stats = nullptr);

 private:
  struct Memory;
  KindMatchingOptions options_;
  std::unique_ptr<Memory> memory_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_KIND_MATCHING_H_
