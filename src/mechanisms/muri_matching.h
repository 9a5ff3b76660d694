// Compat-only (--compat muri) maximum-weight matching that reproduces the matching the
// Muri simulator's hand-written blossom (simulator/matching.py, _Blossom_Same) returns.
//
// Why not MaxWeightMatching (LEMON): both maximise the total weight, but when several
// matchings have (nearly) the same weight they may return different ones, and Muri's
// implementation also compares with a relative tolerance (math.isclose, rel 1e-5), so
// "equal" there means "within 1e-5". Which matching is returned decides the groups and
// so the whole schedule. This is an independent C++ implementation of the standard
// O(n^3) weighted-blossom algorithm (vertex labels, slack, blossom shrink/expand) with
// the same operation order and the same deviations Muri's port has:
//   - comparisons `cmp(x, y) == 0` mean "x <= y or isclose(x, y, rel 1e-5)";
//   - directed weights w[u][v] (u's jobs then v's) are read as given;
//   - nested blossoms are expanded breadth-first when queued, and match/augment updates
//     are processed in FIFO order;
//   - labels start at the largest weight; augmentation repeats until a phase fails.
// Not a general-purpose matcher: with ties it is only as good as Muri's.
#ifndef SCHEDKIT_MECHANISMS_MURI_MATCHING_H_
#define SCHEDKIT_MECHANISMS_MURI_MATCHING_H_

#include <vector>

namespace schedkit {

// `w` is an n x n matrix of directed weights (w[u][v] for the pair listed as u then v);
// an entry that is not > 0 means no edge (w[u][u] is ignored). Returns mate[i] (or -1)
// for each of the n nodes; a node is reported matched only if its mate agrees.
std::vector<int> MuriBlossomMatching(const std::vector<std::vector<double>>& w);
// The same with `w` as one row-major n x n array (w[u * n + v]); reuses a per-thread
// workspace, so repeated calls allocate only the result.
std::vector<int> MuriBlossomMatching(int n, const std::vector<double>& w);

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_MURI_MATCHING_H_
