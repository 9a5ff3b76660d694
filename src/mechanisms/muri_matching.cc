// See muri_matching.h. Nodes are 1-based internally (0 = none); blossoms get the ids
// after the n nodes and are reused once expanded.
//
// Speed (docs/performance.md, Muri section): the matrices are flat arrays with a fixed
// row stride, reused across calls (one workspace per thread), so a call allocates nothing
// once the workspace has grown; the queues are vectors with a read index instead of
// deques; and the scan of a node's neighbours, where the time goes, reads the original
// weight directly (an edge between two original nodes is never rewritten, so its
// endpoints are the node pair itself). The operations and their order are unchanged, so
// every comparison, tie and result is the same as before.
#include "mechanisms/muri_matching.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace schedkit {
namespace {

// Python's math.isclose(a, b, rel_tol=rel).
bool IsClose(double a, double b, double rel) {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

// 1 if x is clearly greater than y, else 0 (never -1).
int Cmp(double x, double y) {
  if (IsClose(x, y, 1e-5)) return 0;
  return x > y ? 1 : 0;
}

// Cmp(x, 0) == 0: isclose(x, 0) holds only for x == 0, so this is "not > 0".
bool NotPositive(double x) { return !(x > 0); }

class Blossom {
 public:
  // w: n x n directed weights, row-major.
  std::vector<int> Run(int n, const double* w) {
    Reset(n);
    bool any = false;
    for (int u = 1; u <= n_; ++u) {
      for (int v = 1; v <= n_; ++v) {
        if (u == v) continue;
        const double x = w[(u - 1) * n + (v - 1)];
        if (NotPositive(x)) continue;  // Kept iff clearly > 0.
        Ew(u, v) = x;
        any = true;
      }
    }
    if (any) {
      double w_max = 0;
      bool first = true;
      for (int u = 1; u <= n_; ++u) {
        for (int v = 1; v <= n_; ++v) {
          if (first || Ew(u, v) > w_max) w_max = Ew(u, v);
          first = false;
        }
      }
      std::fill(lab_.begin(), lab_.begin() + n_ + 1, w_max);
      while (Matching()) {
      }
    }
    std::vector<int> mate(n_, -1);
    for (int u = 1; u <= n_; ++u) {
      const int v = match_[u];
      if (v > 0 && v <= n_ && match_[v] == u) mate[u - 1] = v - 1;
    }
    return mate;
  }

 private:
  // Edge (x, y) of the contracted graph: its endpoints among the original nodes and
  // its weight, in three flat arrays with row stride cap_.
  int& Eu(int x, int y) { return eu_[static_cast<size_t>(x) * cap_ + y]; }
  int& Ev(int x, int y) { return ev_[static_cast<size_t>(x) * cap_ + y]; }
  double& Ew(int x, int y) { return ew_[static_cast<size_t>(x) * cap_ + y]; }
  int& FlowerFrom(int b, int x) { return flower_from_[static_cast<size_t>(b) * (n_ + 1) + x]; }

  void CopyEdge(int to_x, int to_y, int from_x, int from_y) {
    Eu(to_x, to_y) = Eu(from_x, from_y);
    Ev(to_x, to_y) = Ev(from_x, from_y);
    Ew(to_x, to_y) = Ew(from_x, from_y);
  }

  // Sizes the workspace for nodes 0..n plus room for the blossoms (live blossoms are at
  // most n / 2; Grow handles the rest) and sets the original nodes' edges to (u, v, 0).
  void Reset(int n) {
    n_ = n;
    n_x_ = n;
    t_ = 0;
    const int cap = n + n / 2 + 2;
    if (cap > cap_ || static_cast<size_t>(cap) * cap > ew_.size()) {
      cap_ = cap;
      eu_.resize(static_cast<size_t>(cap_) * cap_);
      ev_.resize(eu_.size());
      ew_.resize(eu_.size());
    } else {
      cap_ = cap;  // Same storage, tighter stride: rows stay close together.
    }
    for (int u = 0; u <= n_; ++u) {
      for (int v = 0; v <= n_; ++v) {
        Eu(u, v) = u;
        Ev(u, v) = v;
        Ew(u, v) = 0;
      }
    }
    for (std::vector<int>* a : {&match_, &st_, &pa_, &S_, &slack_, &vis_}) a->assign(cap_, 0);
    lab_.assign(cap_, 0);
    best_dist_.assign(cap_, 0);
    has_best_.assign(cap_, 0);
    for (int i = 0; i <= n_; ++i) st_[i] = i;
    flower_.resize(cap_);
    for (int i = 0; i < cap_; ++i) flower_[i].clear();
    flower_from_.assign(static_cast<size_t>(cap_) * (n_ + 1), 0);
    for (int i = 0; i <= n_; ++i) FlowerFrom(i, i) = i;
  }

  // Makes room for node id `b` (a new blossom) when the workspace is full.
  void Grow(int b) {
    if (b < cap_) return;
    const int cap = std::max(b + 1, cap_ * 3 / 2);
    std::vector<int> eu(static_cast<size_t>(cap) * cap), ev(eu.size());
    std::vector<double> ew(eu.size());
    for (int x = 0; x <= n_x_; ++x) {
      for (int y = 0; y <= n_x_; ++y) {
        eu[static_cast<size_t>(x) * cap + y] = Eu(x, y);
        ev[static_cast<size_t>(x) * cap + y] = Ev(x, y);
        ew[static_cast<size_t>(x) * cap + y] = Ew(x, y);
      }
    }
    eu_ = std::move(eu);
    ev_ = std::move(ev);
    ew_ = std::move(ew);
    cap_ = cap;
    for (std::vector<int>* a : {&match_, &st_, &pa_, &S_, &slack_, &vis_}) a->resize(cap_, 0);
    lab_.resize(cap_, 0);
    best_dist_.resize(cap_, 0);
    has_best_.resize(cap_, 0);
    flower_.resize(cap_);
    flower_from_.resize(static_cast<size_t>(cap_) * (n_ + 1), 0);
  }

  double Dist(int x, int y) {
    const int u = Eu(x, y);
    const int v = Ev(x, y);
    return lab_[u] + lab_[v] - Ew(u, v) * 2.0;
  }

  // slack_[x]: the u (original, outside x, in an S = 0 tree) of least slack to x; keeping the best
  // slack in hand instead of recomputing it.
  void SetSlack(int x) {
    int best = 0;
    double best_dist = 0;
    for (int u = 1; u <= n_; ++u) {
      if (Ew(u, x) > 0 && st_[u] != x && S_[st_[u]] == 0) {
        const double dist = Dist(u, x);
        if (best == 0 || dist < best_dist) {
          best = u;
          best_dist = dist;
        }
      }
    }
    slack_[x] = best;
  }

  void QPush(int x) {  // Breadth-first through nested blossoms.
    pending_nodes_.clear();
    pending_nodes_.push_back(x);
    for (size_t head = 0; head < pending_nodes_.size(); ++head) {
      const int y = pending_nodes_[head];
      if (y <= n_) {
        q_.push_back(y);
      } else {
        for (int i : flower_[y]) pending_nodes_.push_back(i);
      }
    }
  }

  void SetSt(int x, int b) {
    st_[x] = b;
    if (x < n_) return;
    for (int i : flower_[x]) SetSt(i, b);
  }

  int GetPr(int b, int xr) {
    std::vector<int>& f = flower_[b];
    const int pr = static_cast<int>(std::find(f.begin(), f.end(), xr) - f.begin());
    if (pr % 2 == 1) {
      std::reverse(f.begin() + 1, f.end());
      return static_cast<int>(f.size()) - pr;
    }
    return pr;
  }

  void SetMatch(int u0, int v0) {
    pending_pairs_.clear();
    pending_pairs_.emplace_back(u0, v0);
    for (size_t head = 0; head < pending_pairs_.size(); ++head) {
      const auto [u, v] = pending_pairs_[head];
      match_[u] = Ev(u, v);
      if (u <= n_) continue;
      const int xr = FlowerFrom(u, Eu(u, v));
      const int pr = GetPr(u, xr);
      std::vector<int>& f = flower_[u];
      for (int i = 0; i < pr; ++i) pending_pairs_.emplace_back(f[i], f[i ^ 1]);
      pending_pairs_.emplace_back(xr, v);
      std::rotate(f.begin(), f.begin() + pr, f.end());
    }
  }

  void Augment(int u, int v) {
    while (true) {
      const int xnv = st_[match_[u]];
      SetMatch(u, v);
      if (xnv == 0) return;
      SetMatch(xnv, st_[pa_[xnv]]);
      u = st_[pa_[xnv]];
      v = xnv;
    }
  }

  int GetLca(int u, int v) {
    ++t_;
    while (u != 0 || v != 0) {
      if (u != 0) {
        if (vis_[u] == t_) return u;
        vis_[u] = t_;
        u = st_[match_[u]];
        if (u != 0) u = st_[pa_[u]];
      }
      std::swap(u, v);
    }
    return 0;
  }

  void AddBlossom(int u, int lca, int v) {
    int b = n_ + 1;
    while (b <= n_x_ && st_[b] != 0) ++b;
    if (b > n_x_) {
      Grow(b);
      ++n_x_;
      flower_[b] = {lca};
      match_[b] = match_[lca];
      for (int x = 0; x <= b; ++x) {  // The new row and column start as (0, 0, 0).
        Eu(x, b) = Ev(x, b) = 0;
        Ew(x, b) = 0;
        Eu(b, x) = Ev(b, x) = 0;
        Ew(b, x) = 0;
      }
      st_[b] = b;
      std::fill(&FlowerFrom(b, 0), &FlowerFrom(b, 0) + n_ + 1, 0);
      S_[b] = slack_[b] = pa_[b] = vis_[b] = 0;
      lab_[b] = 0;
    } else {
      lab_[b] = 0;
      S_[b] = 0;
      match_[b] = match_[lca];
      flower_[b] = {lca};
    }
    for (int x = u; x != lca;) {
      flower_[b].push_back(x);
      const int y = st_[match_[x]];
      flower_[b].push_back(y);
      QPush(y);
      x = st_[pa_[y]];
    }
    std::reverse(flower_[b].begin() + 1, flower_[b].end());
    for (int x = v; x != lca;) {
      flower_[b].push_back(x);
      const int y = st_[match_[x]];
      flower_[b].push_back(y);
      QPush(y);
      x = st_[pa_[y]];
    }
    SetSt(b, b);
    for (int x = 1; x <= n_x_; ++x) {
      Ew(b, x) = 0;
      Ew(x, b) = 0;
    }
    for (int x = 1; x <= n_; ++x) FlowerFrom(b, x) = 0;
    // b's edge to x becomes the member's edge of least slack. The slack of b's current
    // edge is kept in best_dist_ (valid where has_best_) rather than recomputed: labels do
    // not change here and only the diagonal (x == b) is written twice.
    std::fill(has_best_.begin(), has_best_.begin() + n_x_ + 1, 0);
    for (int xs : flower_[b]) {
      for (int x = 1; x <= n_x_; ++x) {
        if (NotPositive(Ew(b, x))) {
          CopyEdge(b, x, xs, x);
          CopyEdge(x, b, x, xs);
          has_best_[x] = 0;
          continue;
        }
        const double d_xs =
            xs <= n_ && x <= n_ ? lab_[xs] + lab_[x] - Ew(xs, x) * 2.0 : Dist(xs, x);
        const double d_b = has_best_[x] ? best_dist_[x] : Dist(b, x);
        const bool take = d_xs < d_b;
        if (take) {
          CopyEdge(b, x, xs, x);
          CopyEdge(x, b, x, xs);
        }
        best_dist_[x] = take ? d_xs : d_b;
        has_best_[x] = x != b;
      }
      for (int x = 1; x <= n_; ++x) {
        if (FlowerFrom(xs, x) != 0) FlowerFrom(b, x) = xs;
      }
    }
    SetSlack(b);
  }

  void ExpandBlossom(int b) {
    for (int i : flower_[b]) SetSt(i, i);
    const int xr = FlowerFrom(b, Eu(b, pa_[b]));
    const int pr = GetPr(b, xr);
    for (int i = 0; i < pr; i += 2) {
      const int xs = flower_[b][i];
      const int xns = flower_[b][i + 1];
      pa_[xs] = Eu(xns, xs);
      S_[xs] = 1;
      S_[xns] = 0;
      slack_[xs] = 0;
      SetSlack(xns);
      QPush(xns);
    }
    S_[xr] = 1;
    pa_[xr] = pa_[b];
    for (size_t i = pr + 1; i < flower_[b].size(); ++i) {
      const int xs = flower_[b][i];
      S_[xs] = -1;
      SetSlack(xs);
    }
    st_[b] = 0;
  }

  // The edge with original endpoints (eu, ev) has become tight.
  bool OnFoundEdge(int eu, int ev) {
    const int u = st_[eu];
    const int v = st_[ev];
    if (S_[v] == -1) {
      pa_[v] = eu;
      S_[v] = 1;
      const int nu = st_[match_[v]];
      slack_[v] = 0;
      slack_[nu] = 0;
      S_[nu] = 0;
      QPush(nu);
    } else if (S_[v] == 0) {
      const int lca = GetLca(u, v);
      if (lca == 0) {
        Augment(u, v);
        Augment(v, u);
        return true;
      }
      AddBlossom(u, lca, v);
    }
    return false;
  }

  // Scans original node u's neighbours: tight edges grow the tree, others update slack_[st_[v]]
  // as SetSlack would. An edge between two original nodes is (u, v, w) itself, so
  // its slack is read directly instead of through the stored endpoints.
  bool Scan(int u) {
    const double lab_u = lab_[u];  // Labels change only between scans.
    for (int v = 1; v <= n_; ++v) {
      const double w = Ew(u, v);
      if (!(w > 0)) continue;
      const int x = st_[v];
      if (st_[u] == x) continue;
      const double dist = lab_u + lab_[v] - w * 2.0;
      if (NotPositive(dist)) {
        if (OnFoundEdge(u, v)) return true;
        continue;
      }
      const int s = slack_[x];
      if (s == 0) {
        slack_[x] = u;
      } else if (x == v) {  // Both edges join original nodes.
        if (dist < lab_[s] + lab_[v] - Ew(s, v) * 2.0) slack_[x] = u;
      } else if (Dist(u, x) < Dist(s, x)) {
        slack_[x] = u;
      }
    }
    return false;
  }

  bool Matching() {
    std::fill(S_.begin(), S_.begin() + n_x_ + 1, -1);
    std::fill(slack_.begin(), slack_.begin() + n_x_ + 1, 0);
    q_.clear();
    {
      const int nx = n_x_;
      for (int x = 1; x <= nx; ++x) {
        if (st_[x] == x && match_[x] <= 0) {
          pa_[x] = 0;
          S_[x] = 0;
          QPush(x);
        }
      }
    }
    if (q_.empty()) return false;
    size_t head = 0;
    while (true) {
      while (head < q_.size()) {
        const int u = q_[head++];
        if (S_[st_[u]] == 1) continue;
        if (Scan(u)) return true;
      }
      double d = std::numeric_limits<double>::infinity();
      const int nx = n_x_;
      for (int b = n_ + 1; b <= nx; ++b) {
        if (st_[b] == b && S_[b] == 1) d = std::min(d, lab_[b] / 2.0);
      }
      for (int x = 1; x <= nx; ++x) {
        if (st_[x] == x && slack_[x] != 0) {
          if (S_[x] == -1) {
            d = std::min(d, Dist(slack_[x], x));
          } else if (S_[x] == 0) {
            d = std::min(d, Dist(slack_[x], x) / 2.0);
          }
        }
      }
      for (int u = 1; u <= n_; ++u) {
        if (S_[st_[u]] == 0) {
          if (Cmp(lab_[u], d) <= 0) return false;
          lab_[u] -= d;
        } else if (S_[st_[u]] == 1) {
          lab_[u] += d;
        }
      }
      for (int b = n_ + 1; b <= nx; ++b) {
        if (st_[b] == b) {
          if (S_[st_[b]] == 0) {
            lab_[b] += d * 2;
          } else if (S_[st_[b]] == 1) {
            lab_[b] -= d * 2;
          }
        }
      }
      q_.clear();
      head = 0;
      for (int x = 1; x <= nx; ++x) {
        if (st_[x] == x && slack_[x] != 0 && st_[slack_[x]] != x &&
            NotPositive(Dist(slack_[x], x))) {
          if (OnFoundEdge(Eu(slack_[x], x), Ev(slack_[x], x))) return true;
        }
      }
      const int nx2 = n_x_;  // Blossoms added just above are included, as in Muri.
      for (int b = n_ + 1; b <= nx2; ++b) {
        if (st_[b] == b && S_[b] == 1 && NotPositive(lab_[b])) ExpandBlossom(b);
      }
    }
  }

  int n_ = 0;
  int n_x_ = 0;
  int t_ = 0;
  int cap_ = 0;  // Row stride of the edge arrays; node ids < cap_.
  std::vector<int> eu_, ev_;
  std::vector<double> ew_;
  std::vector<int> match_, st_, pa_, S_, slack_, vis_;
  std::vector<std::vector<int>> flower_;
  std::vector<int> flower_from_;  // cap_ x (n_ + 1).
  std::vector<double> lab_;
  std::vector<double> best_dist_;  // AddBlossom's scratch, cap_ long.
  std::vector<char> has_best_;
  std::vector<int> q_;  // Read from an index in Matching; cleared between rounds.
  std::vector<int> pending_nodes_;
  std::vector<std::pair<int, int>> pending_pairs_;
};

}  // namespace

std::vector<int> MuriBlossomMatching(int n, const std::vector<double>& w) {
  if (n < 2) return std::vector<int>(std::max(n, 0), -1);
  thread_local Blossom workspace;
  return workspace.Run(n, w.data());
}

std::vector<int> MuriBlossomMatching(const std::vector<std::vector<double>>& w) {
  const int n = static_cast<int>(w.size());
  std::vector<double> flat;
  flat.reserve(static_cast<size_t>(n) * n);
  for (const std::vector<double>& row : w) flat.insert(flat.end(), row.begin(), row.end());
  return MuriBlossomMatching(n, flat);
}

}  // namespace schedkit
