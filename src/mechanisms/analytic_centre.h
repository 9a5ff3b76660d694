// The analytic centre of a polytope {x : E x = e, a_i . x <= b_i for every row i}: the point
// that maximises sum_i w_i log(b_i - a_i . x) over it, a well-defined point of its relative
// interior. Policies use it to pick a point inside an LP's optimal face, as an interior-point
// solver does, instead of the simplex's vertex (Gavel's agnostic max-min fairness: docs/gavel.md,
// "The agnostic optimum"): the face is the LP's constraints with the rows and bounds that are
// tight at every optimum (nonzero dual) made equalities.
//
// Phase I is an LP (CLP): maximise the least slack sigma with a_i . x + sigma <= b_i and the
// equalities. While sigma is 0, the inequalities that block it (nonzero dual) are tight on the
// whole polytope: they become equalities and phase I is solved again. Phase II is Newton's
// method on the weighted log barrier within the equalities (a dense KKT system, O((n + m)^3)
// per step in variables n and equalities m: meant for small problems, hundreds), with a
// backtracking line search that keeps every slack positive.
#ifndef SCHEDKIT_MECHANISMS_ANALYTIC_CENTRE_H_
#define SCHEDKIT_MECHANISMS_ANALYTIC_CENTRE_H_

#include <optional>
#include <vector>

#include "mechanisms/lp.h"

namespace schedkit {

struct CentreRow {
  std::vector<LpTerm> terms;  // a_i, sparse.
  double bound = 0;           // b_i (an equality's right-hand side).
  double weight = 1;          // w_i > 0 (unused for equalities).
};

// The centre of {x in R^n : every equality and inequality holds}, or nullopt when the LP
// fails or no inequality is left with room. Newton stops when the squared Newton decrement is
// below 1e-20 of the barrier's weight, or after 200 steps.
std::optional<std::vector<double>> AnalyticCentre(int n, std::vector<CentreRow> inequalities,
                                                  std::vector<CentreRow> equalities);

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_ANALYTIC_CENTRE_H_
