#include "lucid/vc_nodes.h"

#include <algorithm>
#include <cassert>

#include "schedkit/lucid.h"

namespace schedkit::lucid {

VcNodes::VcNodes(int nodes) {
  for (int i = 0; i < nodes; ++i) {
    objects_.push_back({i, kGpusPerNode});
    order_.push_back(i);
  }
  free_gpus_ = nodes * kGpusPerNode;
}

int VcNodes::total_gpus() const { return node_count() * kGpusPerNode; }

int VcNodes::idle_nodes() const {
  int n = 0;
  for (int o : order_) n += objects_[o].free == kGpusPerNode;
  return n;
}

int VcNodes::FindByName(int name) const {
  for (int o : order_) {
    if (objects_[o].name == name) return o;
  }
  return -1;
}

bool VcNodes::NodeIsIdle(int name) const {
  const int o = FindByName(name);
  return o >= 0 && objects_[o].free == kGpusPerNode;
}

bool VcNodes::Place(int gpus, std::vector<NodeShare>* out) {
  out->clear();
  if (free_gpus_ < gpus) return false;
  scratch_.clear();
  for (int o : order_) {
    if (objects_[o].free > 0) scratch_.push_back(o);
  }
  auto free_of = [this](int o) { return objects_[o].free; };
  if (gpus <= kGpusPerNode) {
    std::stable_sort(scratch_.begin(), scratch_.end(),
                     [&](int a, int b) { return free_of(a) < free_of(b); });
    for (int o : scratch_) {
      if (free_of(o) >= gpus) {
        out->push_back({o, gpus});
        break;
      }
    }
  } else {
    std::stable_sort(scratch_.begin(), scratch_.end(),
                     [&](int a, int b) { return free_of(a) > free_of(b); });
    const int whole = gpus / kGpusPerNode, rest = gpus % kGpusPerNode;
    bool ok = false;
    for (int o : scratch_) {
      const int taken = static_cast<int>(out->size());
      if (rest == 0) {
        if (free_of(o) < kGpusPerNode) break;
        out->push_back({o, kGpusPerNode});
        if (taken + 1 == whole) {
          ok = true;
          break;
        }
      } else if (free_of(o) == kGpusPerNode && taken < whole) {
        out->push_back({o, kGpusPerNode});
      } else {
        if (taken == whole && free_of(o) >= rest) {
          out->push_back({o, rest});
          ok = true;
        }
        break;
      }
    }
    if (!ok) out->clear();
  }
  if (out->empty()) return false;
  for (const NodeShare& s : *out) {
    objects_[s.node].free -= s.gpus;
    free_gpus_ -= s.gpus;
  }
  return true;
}

void VcNodes::Release(const std::vector<NodeShare>& shares) {
  for (const NodeShare& s : shares) {
    objects_[s.node].free += s.gpus;
    free_gpus_ += s.gpus;
    assert(objects_[s.node].free <= kGpusPerNode);
  }
}

void VcNodes::AddTempNode() {
  if (FindByName(kTempNodeName) >= 0) return;
  objects_.push_back({kTempNodeName, kGpusPerNode});
  order_.push_back(static_cast<int>(objects_.size()) - 1);
  free_gpus_ += kGpusPerNode;
}

bool VcNodes::RemoveIdleNode() {
  int victim = -1;
  for (int o : order_) {
    if (objects_[o].free == kGpusPerNode && (victim < 0 || objects_[o].name > objects_[victim].name)) {
      victim = o;
    }
  }
  if (victim < 0) return false;
  if (objects_[victim].name < kTempNodeName && has_temp_node_) {
    // The borrowed node is busy: it takes the idle node's name and the idle one goes.
    const int temp = FindByName(kTempNodeName);
    if (temp >= 0) std::swap(objects_[temp].name, objects_[victim].name);
  }
  order_.erase(std::find(order_.begin(), order_.end(), victim));
  free_gpus_ -= kGpusPerNode;
  has_temp_node_ = true;
  return true;
}

}  // namespace schedkit::lucid
