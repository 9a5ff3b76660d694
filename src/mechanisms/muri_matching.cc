// See muri_matching.h. Nodes are 1-based internally (0 = none); blossoms get the ids
// after the n nodes and are reused once expanded.
#include "mechanisms/muri_matching.h"

#include <algorithm>
#include <cmath>
#include <deque>
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

struct Edge {
  int u = 0, v = 0;
  double w = 0;
};

class Blossom {
 public:
  explicit Blossom(const std::vector<std::vector<double>>& w) : n_(static_cast<int>(w.size())) {
    n_x_ = n_;
    edge_.assign(n_ + 1, std::vector<Edge>(n_ + 1));
    for (int u = 0; u <= n_; ++u) {
      for (int v = 0; v <= n_; ++v) edge_[u][v] = Edge{u, v, 0.0};
    }
    vis_.assign(n_ + 1, 0);
    match_.assign(n_ + 1, 0);
    bool any = false;
    for (int u = 1; u <= n_; ++u) {
      for (int v = 1; v <= n_; ++v) {
        if (u == v) continue;
        const double x = w[u - 1][v - 1];
        if (Cmp(x, 0.0) == 0) continue;  // Kept iff clearly > 0.
        edge_[u][v].w = x;
        any = true;
      }
    }
    if (!any) return;
    pa_.assign(n_ + 1, 0);
    st_.resize(n_ + 1);
    for (int i = 0; i <= n_; ++i) st_[i] = i;
    flower_.assign(n_ + 1, {});
    flower_from_.assign(n_ + 1, std::vector<int>(n_ + 1, 0));
    for (int i = 0; i <= n_; ++i) flower_from_[i][i] = i;
    double w_max = 0;
    bool first = true;
    for (int u = 1; u <= n_; ++u) {
      for (int v = 1; v <= n_; ++v) {
        if (first || edge_[u][v].w > w_max) w_max = edge_[u][v].w;
        first = false;
      }
    }
    lab_.assign(n_ + 1, w_max);
    while (Matching()) {
    }
  }

  std::vector<int> Mates() const {
    std::vector<int> mate(n_, -1);
    for (int u = 1; u <= n_; ++u) {
      const int v = match_[u];
      if (v > 0 && v <= n_ && match_[v] == u) mate[u - 1] = v - 1;
    }
    return mate;
  }

 private:
  double Dist(const Edge& e) const { return lab_[e.u] + lab_[e.v] - edge_[e.u][e.v].w * 2.0; }

  void UpdateSlack(int u, int x) {
    if (slack_[x] == 0 || Dist(edge_[u][x]) < Dist(edge_[slack_[x]][x])) slack_[x] = u;
  }

  void SetSlack(int x) {
    slack_[x] = 0;
    for (int u = 1; u <= n_; ++u) {
      if (edge_[u][x].w > 0 && st_[u] != x && S_[st_[u]] == 0) UpdateSlack(u, x);
    }
  }

  void QPush(int x) {  // Breadth-first through nested blossoms.
    std::deque<int> pending{x};
    while (!pending.empty()) {
      const int y = pending.front();
      pending.pop_front();
      if (y <= n_) {
        q_.push_back(y);
      } else {
        for (int i : flower_[y]) pending.push_back(i);
      }
    }
  }

  void SetSt(int x, int b) {
    st_[x] = b;
    if (x < n_) return;
    const std::vector<int> members = flower_[x];
    for (int i : members) SetSt(i, b);
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
    std::deque<std::pair<int, int>> pending{{u0, v0}};
    while (!pending.empty()) {
      const auto [u, v] = pending.front();
      pending.pop_front();
      match_[u] = edge_[u][v].v;
      if (u <= n_) continue;
      const Edge e = edge_[u][v];
      const int xr = flower_from_[u][e.u];
      const int pr = GetPr(u, xr);
      std::vector<int>& f = flower_[u];
      for (int i = 0; i < pr; ++i) pending.emplace_back(f[i], f[i ^ 1]);
      pending.emplace_back(xr, v);
      std::rotate(f.begin(), f.begin() + pr, f.end());
    }
  }

  void Augment(int u0, int v0) {
    std::deque<std::pair<int, int>> pending{{u0, v0}};
    while (!pending.empty()) {
      const auto [u, v] = pending.front();
      pending.pop_front();
      const int xnv = st_[match_[u]];
      SetMatch(u, v);
      if (xnv == 0) return;
      SetMatch(xnv, st_[pa_[xnv]]);
      pending.emplace_back(st_[pa_[xnv]], xnv);
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
      ++n_x_;
      flower_.push_back({lca});
      match_.push_back(match_[lca]);
      for (auto& row : edge_) row.push_back(Edge{});
      edge_.emplace_back(b + 1, Edge{});
      st_.push_back(b);
      for (auto& row : flower_from_) row.push_back(0);
      flower_from_.emplace_back(b + 1, 0);
      S_.push_back(0);
      slack_.push_back(0);
      pa_.push_back(0);
      vis_.push_back(0);
      lab_.push_back(0);
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
      edge_[b][x].w = 0;
      edge_[x][b].w = 0;
    }
    for (int x = 1; x <= n_; ++x) flower_from_[b][x] = 0;
    const std::vector<int> members = flower_[b];
    for (int xs : members) {
      for (int x = 1; x <= n_x_; ++x) {
        if (Cmp(edge_[b][x].w, 0) == 0 || Dist(edge_[xs][x]) < Dist(edge_[b][x])) {
          edge_[b][x] = edge_[xs][x];
          edge_[x][b] = edge_[x][xs];
        }
      }
      for (int x = 1; x <= n_; ++x) {
        if (flower_from_[xs][x] != 0) flower_from_[b][x] = xs;
      }
    }
    SetSlack(b);
  }

  void ExpandBlossom(int b) {
    const std::vector<int> members = flower_[b];
    for (int i : members) SetSt(i, i);
    const int xr = flower_from_[b][edge_[b][pa_[b]].u];
    const int pr = GetPr(b, xr);
    for (int i = 0; i < pr; i += 2) {
      const int xs = flower_[b][i];
      const int xns = flower_[b][i + 1];
      pa_[xs] = edge_[xns][xs].u;
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

  bool OnFoundEdge(const Edge e) {
    const int u = st_[e.u];
    const int v = st_[e.v];
    if (S_[v] == -1) {
      pa_[v] = e.u;
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

  bool Matching() {
    S_.assign(n_x_ + 1, -1);
    slack_.assign(n_x_ + 1, 0);
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
    while (true) {
      while (!q_.empty()) {
        const int u = q_.front();
        q_.pop_front();
        if (S_[st_[u]] == 1) continue;
        for (int v = 1; v <= n_; ++v) {
          if (edge_[u][v].w > 0 && st_[u] != st_[v]) {
            if (Cmp(Dist(edge_[u][v]), 0.0) == 0) {
              if (OnFoundEdge(edge_[u][v])) return true;
            } else {
              UpdateSlack(u, st_[v]);
            }
          }
        }
      }
      double d = std::numeric_limits<double>::infinity();
      const int nx = n_x_;
      for (int b = n_ + 1; b <= nx; ++b) {
        if (st_[b] == b && S_[b] == 1) d = std::min(d, lab_[b] / 2.0);
      }
      for (int x = 1; x <= nx; ++x) {
        if (st_[x] == x && slack_[x] != 0) {
          if (S_[x] == -1) {
            d = std::min(d, Dist(edge_[slack_[x]][x]));
          } else if (S_[x] == 0) {
            d = std::min(d, Dist(edge_[slack_[x]][x]) / 2.0);
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
      for (int x = 1; x <= nx; ++x) {
        if (st_[x] == x && slack_[x] != 0 && st_[slack_[x]] != x &&
            Cmp(Dist(edge_[slack_[x]][x]), 0) == 0) {
          if (OnFoundEdge(edge_[slack_[x]][x])) return true;
        }
      }
      const int nx2 = n_x_;  // Blossoms added just above are included, as in Muri.
      for (int b = n_ + 1; b <= nx2; ++b) {
        if (st_[b] == b && S_[b] == 1 && Cmp(lab_[b], 0) == 0) ExpandBlossom(b);
      }
    }
  }

  int n_;
  int n_x_;
  int t_ = 0;
  std::vector<std::vector<Edge>> edge_;
  std::vector<int> match_, st_, pa_, S_, slack_, vis_;
  std::vector<std::vector<int>> flower_, flower_from_;
  std::vector<double> lab_;
  std::deque<int> q_;
};

}  // namespace

std::vector<int> MuriBlossomMatching(const std::vector<std::vector<double>>& w) {
  if (w.size() < 2) return std::vector<int>(w.size(), -1);
  return Blossom(w).Mates();
}

}  // namespace schedkit
