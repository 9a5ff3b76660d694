#include "schedkit/cluster.h"

#include <algorithm>
#include <bit>
#include <charconv>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string_view>

namespace schedkit {

int ClusterSpec::TotalGpus() const {
  int total = 0;
  for (const NodeSpec& n : nodes) total += n.gpus;
  return total;
}

std::vector<std::string> ClusterSpec::GpuTypes() const {
  std::vector<std::string> types;
  for (const NodeSpec& n : nodes) {
    if (std::find(types.begin(), types.end(), n.gpu_type) == types.end()) {
      types.push_back(n.gpu_type);
    }
  }
  return types;
}

ClusterSpec ClusterSpec::Uniform(int switches, int nodes_per_switch, int gpus_per_node,
                                 int cpus_per_node, double mem_gb_per_node, std::string gpu_type) {
  ClusterSpec spec;
  spec.source = "uniform";
  for (int s = 0; s < switches; ++s) {
    for (int n = 0; n < nodes_per_switch; ++n) {
      spec.nodes.push_back(NodeSpec{s, gpus_per_node, cpus_per_node, mem_gb_per_node, gpu_type});
    }
  }
  return spec;
}

namespace {

void AppendInt(std::string* out, int v) {
  char text[16];
  const auto end = std::to_chars(text, text + sizeof(text), v).ptr;
  out->append(text, end);
}

// A share's GPUs as ascending indices, runs as ranges: "0-3,5".
void AppendGpuList(std::string* out, uint64_t mask) {
  bool first = true;
  while (mask != 0) {
    const int g = std::countr_zero(mask);
    const int run = std::countr_one(mask >> g);
    if (!first) out->push_back(',');
    first = false;
    AppendInt(out, g);
    if (run > 1) {
      out->push_back('-');
      AppendInt(out, g + run - 1);
    }
    mask = run + g >= 64 ? 0 : mask & ~(((uint64_t{1} << run) - 1) << g);
  }
}

// The placement text, one string built in place (it is formatted at every start for
// jobs.csv); `append_node(out, node)` writes a node's name.
template <class AppendNode>
std::string PlacementText(const Placement& p, AppendNode append_node) {
  std::string out;
  for (const NodeShare& s : p.shares) {
    if (!out.empty()) out.push_back(';');
    append_node(&out, s.node);
    out.push_back(':');
    AppendGpuList(&out, s.gpu_mask);
    if (s.fractional()) {
      out.push_back('@');
      AppendInt(&out, s.gpu_milli);
    }
  }
  return out;
}

// A whole non-negative decimal number, without sign or spaces.
bool ParseIndex(std::string_view text, int* out) {
  if (text.empty() || text.size() > 9) return false;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// Adds "a" or "a-b" to `mask`; the reason it cannot otherwise.
std::string AddGpuRange(std::string_view range, uint64_t* mask) {
  const size_t dash = range.find('-');
  int first = 0, last = 0;
  if (!ParseIndex(range.substr(0, dash), &first) ||
      !ParseIndex(dash == std::string_view::npos ? range.substr(0, dash) : range.substr(dash + 1),
                  &last)) {
    return "GPUs '" + std::string(range) + "' are not an index or a range 'a-b'";
  }
  if (last < first) return "GPU range '" + std::string(range) + "' is not ascending";
  if (last >= kMaxGpusPerNode) {
    return "GPU " + std::to_string(last) + " is past the last index " +
           std::to_string(kMaxGpusPerNode - 1);
  }
  for (int g = first; g <= last; ++g) {
    if (*mask >> g & 1) return "GPU " + std::to_string(g) + " is given twice";
    *mask |= uint64_t{1} << g;
  }
  return "";
}

// Node i as "n<i>", or as node_names[i] when names are given.
bool ParseNode(std::string_view text, const std::vector<std::string>& node_names, int* node) {
  if (node_names.empty())
    return text.size() > 1 && text[0] == 'n' && ParseIndex(text.substr(1), node);
  for (size_t i = 0; i < node_names.size(); ++i) {
    if (node_names[i] == text) {
      *node = static_cast<int>(i);
      return true;
    }
  }
  return false;
}

// Reads "<node>:<gpus>"; the reason it cannot otherwise.
std::string ParseShare(std::string_view text, const std::vector<std::string>& node_names,
                       NodeShare* share) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return "share '" + std::string(text) + "' is not '<node>:<gpus>'";
  }
  if (!ParseNode(text.substr(0, colon), node_names, &share->node)) {
    return "node '" + std::string(text.substr(0, colon)) + "' is not " +
           (node_names.empty() ? "'n<index>'" : "a node of the cluster");
  }
  std::string_view gpus = text.substr(colon + 1);
  const size_t at = gpus.find('@');
  if (at != std::string_view::npos) {
    const std::string_view milli = gpus.substr(at + 1);
    if (!ParseIndex(milli, &share->gpu_milli) || share->gpu_milli < 1 ||
        share->gpu_milli >= kMilliPerGpu) {
      return "share '" + std::string(milli) + "' is not a milli-GPU share from 1 to " +
             std::to_string(kMilliPerGpu - 1);
    }
    gpus = gpus.substr(0, at);
  }
  while (!gpus.empty()) {
    const size_t comma = gpus.find(',');
    const std::string why = AddGpuRange(gpus.substr(0, comma), &share->gpu_mask);
    if (!why.empty()) return why;
    if (comma == std::string_view::npos) break;
    gpus.remove_prefix(comma + 1);
    if (gpus.empty()) return "share '" + std::string(text) + "' ends with ','";
  }
  if (share->fractional() && share->gpus() != 1) {
    return "fractional share '" + std::string(text) + "' names " + std::to_string(share->gpus()) +
           " GPUs, not one";
  }
  return "";
}

}  // namespace

std::string Placement::ToString() const {
  return PlacementText(*this, [](std::string* out, int node) {
    out->push_back('n');
    AppendInt(out, node);
  });
}

std::string Placement::ToString(const std::vector<std::string>& node_names) const {
  return PlacementText(*this, [&](std::string* out, int node) { out->append(node_names.at(node)); });
}

Result<Placement> ParsePlacement(const std::string& text,
                                 const std::vector<std::string>& node_names) {
  Placement p;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t semi = rest.find(';');
    NodeShare share;
    std::string why = ParseShare(rest.substr(0, semi), node_names, &share);
    if (why.empty() && !p.shares.empty() && share.node <= p.shares.back().node) {
      why = "share '" + std::string(rest.substr(0, semi)) +
            "' is out of order (nodes go once each, in ascending node order)";
    }
    if (!why.empty()) return Status::InvalidArgument("placement '" + text + "': " + why);
    p.shares.push_back(share);
    if (semi == std::string_view::npos) break;
    rest.remove_prefix(semi + 1);
    if (rest.empty()) return Status::InvalidArgument("placement '" + text + "': ends with ';'");
  }
  return p;
}

bool Placement::operator==(const Placement& o) const { return shares == o.shares; }

ClusterState::ClusterState(const ClusterSpec* spec) : spec_(spec) {
  const size_t n = spec->nodes.size();
  free_.reserve(n);
  for (const NodeSpec& n : spec->nodes) {
    free_.push_back(NodeFree{.gpu_mask = n.gpus >= 64 ? ~uint64_t{0} : (uint64_t{1} << n.gpus) - 1,
                             .mem_gb = n.mem_gb,
                             .gpus = n.gpus,
                             .cpus = n.cpus});
    total_free_gpus_ += n.gpus;
    max_node_gpus_ = std::max(max_node_gpus_, n.gpus);
    one_gpu_type_ = one_gpu_type_ && n.gpu_type == spec->nodes[0].gpu_type;
  }
  total_gpus_ = total_free_gpus_;
  words_ = static_cast<int>((n + 63) / 64);
  by_free_.assign(static_cast<size_t>(max_node_gpus_ + 1) * words_, 0);
  for (size_t node = 0; node < n; ++node) {
    by_free_[static_cast<size_t>(free_[node].gpus) * words_ + node / 64] |= uint64_t{1} << (node % 64);
  }
}

void ClusterState::SetFreeGpus(int node, int count) {
  const uint64_t bit = uint64_t{1} << (node % 64);
  by_free_[static_cast<size_t>(free_[node].gpus) * words_ + node / 64] &= ~bit;
  by_free_[static_cast<size_t>(count) * words_ + node / 64] |= bit;
  free_[node].gpus = count;
}

int ClusterState::FirstNodeWithAtLeast(int count, int from) const {
  count = std::max(count, 0);
  if (count > max_node_gpus_ || from >= num_nodes()) return -1;
  from = std::max(from, 0);
  for (int w = from / 64; w < words_; ++w) {
    uint64_t bits = 0;
    for (int c = count; c <= max_node_gpus_; ++c) bits |= by_free_[static_cast<size_t>(c) * words_ + w];
    if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
    if (bits != 0) return w * 64 + std::countr_zero(bits);
  }
  return -1;
}

bool ClusterState::CanAllocate(const Placement& p) const {
  int previous_node = -1;
  for (const NodeShare& s : p.shares) {
    // Shares name each node once, in ascending order (so no GPU is counted twice).
    if (s.node <= previous_node || s.node >= num_nodes()) return false;
    previous_node = s.node;
    if (s.fractional()) {
      if (!CanAllocateFraction(s)) return false;
    } else if ((s.gpu_mask & free_[s.node].gpu_mask) != s.gpu_mask) {
      return false;
    }
    if (s.cpus > free_[s.node].cpus || s.mem_gb > free_[s.node].mem_gb + 1e-9) return false;
  }
  return true;
}

// Inlined into both callers: Allocate is on every path that books a job.
[[gnu::always_inline]] inline void ClusterState::Book(const Placement& p) {
  for (const NodeShare& s : p.shares) {
    free_[s.node].cpus -= s.cpus;
    free_[s.node].mem_gb -= s.mem_gb;
    if (s.fractional()) {
      AllocateFraction(s);
      continue;
    }
    free_[s.node].gpu_mask &= ~s.gpu_mask;
    const int gpus = s.gpus();
    SetFreeGpus(s.node, free_[s.node].gpus - gpus);
    total_free_gpus_ -= gpus;
  }
}

void ClusterState::Allocate(const Placement& p) {
  if (!CanAllocate(p)) {
    std::fprintf(stderr, "schedkit: internal error: double booking of %s\n", p.ToString().c_str());
    std::abort();
  }
  Book(p);
}

bool ClusterState::TryAllocate(const Placement& p) {
  if (!CanAllocate(p)) return false;
  Book(p);
  return true;
}

void ClusterState::Release(const Placement& p) {
  for (const NodeShare& s : p.shares) {
    if ((free_[s.node].gpu_mask & s.gpu_mask) != 0) {
      std::fprintf(stderr, "schedkit: internal error: releasing free GPUs %s\n",
                   p.ToString().c_str());
      std::abort();
    }
    free_[s.node].cpus += s.cpus;
    free_[s.node].mem_gb += s.mem_gb;
    if (s.fractional()) {
      ReleaseFraction(s);
      continue;
    }
    if (held(s.node)) {
      held_gpus_[s.node] |= s.gpu_mask;  // The hold keeps them.
      continue;
    }
    free_[s.node].gpu_mask |= s.gpu_mask;
    const int gpus = s.gpus();
    SetFreeGpus(s.node, free_[s.node].gpus + gpus);
    total_free_gpus_ += gpus;
  }
}

void ClusterState::SetHeld(int node, bool held_now) {
  if (held(node) == held_now) return;
  if (held_.empty()) {
    held_.assign(free_.size(), 0);
    held_gpus_.assign(free_.size(), 0);
  }
  const uint64_t gpus = held_now ? free_[node].gpu_mask : held_gpus_[node];
  const int count = std::popcount(gpus);
  free_[node].gpu_mask = held_now ? free_[node].gpu_mask & ~gpus : free_[node].gpu_mask | gpus;
  SetFreeGpus(node, free_[node].gpus + (held_now ? -count : count));
  total_free_gpus_ += held_now ? -count : count;
  held_gpus_[node] = held_now ? gpus : 0;
  held_[node] = held_now;
}

int ClusterState::free_gpu_milli(int node, int gpu) const {
  if (free_[node].gpu_mask >> gpu & 1) return kMilliPerGpu;
  if (!(shared_gpu_mask(node) >> gpu & 1)) return 0;
  return kMilliPerGpu - share_used_[first_gpu_[node] + gpu];
}

bool ClusterState::CanAllocateFraction(const NodeShare& s) const {
  if (s.gpu_milli < 1 || s.gpus() != 1 || held(s.node)) return false;
  const int gpus = spec_->nodes[s.node].gpus;
  if (gpus < kMaxGpusPerNode && s.gpu_mask >> gpus != 0) return false;  // No such GPU.
  const int gpu = std::countr_zero(s.gpu_mask);
  return free_gpu_milli(s.node, gpu) >= s.gpu_milli;
}

void ClusterState::AllocateFraction(const NodeShare& s) {
  if (share_used_.empty()) {
    shared_mask_.assign(free_.size(), 0);
    first_gpu_.reserve(free_.size());
    int first = 0;
    for (const NodeSpec& n : spec_->nodes) {
      first_gpu_.push_back(first);
      first += n.gpus;
    }
    share_used_.assign(static_cast<size_t>(first), 0);
  }
  if (free_[s.node].gpu_mask & s.gpu_mask) {  // A free GPU becomes shared.
    free_[s.node].gpu_mask &= ~s.gpu_mask;
    SetFreeGpus(s.node, free_[s.node].gpus - 1);
    --total_free_gpus_;
  }
  int& used = share_used_[first_gpu_[s.node] + std::countr_zero(s.gpu_mask)];
  const bool was_shared = used > 0 && used < kMilliPerGpu;
  used += s.gpu_milli;
  const bool shared = used < kMilliPerGpu;
  shared_mask_[s.node] = shared ? shared_mask_[s.node] | s.gpu_mask : shared_mask_[s.node] & ~s.gpu_mask;
  total_shared_gpus_ += static_cast<int>(shared) - static_cast<int>(was_shared);
}

void ClusterState::ReleaseFraction(const NodeShare& s) {
  const int gpu = s.gpu_mask == 0 ? -1 : std::countr_zero(s.gpu_mask);
  if (share_used_.empty() || s.gpus() != 1 || gpu >= spec_->nodes[s.node].gpus ||
      share_used_[first_gpu_[s.node] + gpu] < s.gpu_milli) {
    std::fprintf(stderr, "schedkit: internal error: releasing a share not booked %s\n",
                 Placement{{s}}.ToString().c_str());
    std::abort();
  }
  int& used = share_used_[first_gpu_[s.node] + gpu];
  const bool was_shared = used < kMilliPerGpu;
  used -= s.gpu_milli;
  const bool shared = used > 0;
  shared_mask_[s.node] = shared ? shared_mask_[s.node] | s.gpu_mask : shared_mask_[s.node] & ~s.gpu_mask;
  total_shared_gpus_ += static_cast<int>(shared) - static_cast<int>(was_shared);
  if (used == 0) GpuFreed(s.node, s.gpu_mask);
}

void ClusterState::GpuFreed(int node, uint64_t bit) {
  if (held(node)) {
    held_gpus_[node] |= bit;  // The hold keeps it.
    return;
  }
  free_[node].gpu_mask |= bit;
  SetFreeGpus(node, free_[node].gpus + 1);
  ++total_free_gpus_;
}

std::string ClusterState::CheckShares() const {
  int shared_total = 0;
  for (int node = 0; node < num_nodes(); ++node) {
    const std::string at = "node " + std::to_string(node);
    const int gpus = spec_->nodes[node].gpus;
    if (free_[node].gpus != std::popcount(free_[node].gpu_mask)) {
      return at + ": free GPU count differs from its free mask";
    }
    for (int c = 0; c <= max_node_gpus_; ++c) {
      const bool indexed = by_free_[static_cast<size_t>(c) * words_ + node / 64] >> (node % 64) & 1;
      if (indexed != (c == free_[node].gpus)) return at + ": index by free GPUs differs from its count";
    }
    if (share_used_.empty()) continue;
    for (int g = 0; g < gpus; ++g) {
      const int used = share_used_[first_gpu_[node] + g];
      const uint64_t bit = uint64_t{1} << g;
      if (used < 0 || used > kMilliPerGpu) {
        return at + " GPU " + std::to_string(g) + ": fractional jobs book " +
               std::to_string(used) + " milli-GPU";
      }
      if (used > 0 && (free_[node].gpu_mask & bit)) {
        return at + " GPU " + std::to_string(g) + " is free and booked by fractional jobs";
      }
      const bool shared = used > 0 && used < kMilliPerGpu;
      if (shared != ((shared_mask_[node] & bit) != 0)) {
        return at + " GPU " + std::to_string(g) + ": shared mask differs from its bookings";
      }
      shared_total += shared;
    }
  }
  if (shared_total != total_shared_gpus_) return "shared GPU count differs from the masks";
  return "";
}

uint64_t LowestBits(uint64_t mask, int n) {
  uint64_t out = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t bit = mask & (~mask + 1);
    out |= bit;
    mask &= mask - 1;
  }
  return out;
}

}  // namespace schedkit
