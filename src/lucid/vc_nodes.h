// Internal: the nodes of one virtual cluster as the Lucid simulator keeps them, with its
// consolidating placement and its node lending (add a temporary node / remove an idle one).
//
// Node order and node names matter: placement sorts the nodes with free GPUs stably by
// free count (so ties keep list order), and removal picks the idle node with the largest
// name. Allocations refer to node objects, which never move, so renaming a node (Lucid
// swaps names when it removes a borrowed node that is busy) needs no bookkeeping in jobs.
#ifndef SCHEDKIT_LUCID_VC_NODES_H_
#define SCHEDKIT_LUCID_VC_NODES_H_

#include <vector>

namespace schedkit::lucid {

struct NodeShare {
  int node = 0;  // Node object index.
  int gpus = 0;
};

class VcNodes {
 public:
  static constexpr int kTempNodeName = 9999;

  explicit VcNodes(int nodes);

  int free_gpus() const { return free_gpus_; }
  int node_count() const { return static_cast<int>(order_.size()); }
  int total_gpus() const;
  int idle_nodes() const;
  bool NodeIsIdle(int name) const;  // False if no node has that name.

  // Lucid's consolidate placement: <= 8 GPUs best fit (free ascending); multiples of 8
  // whole free nodes; others whole nodes plus the remainder on the next node (free
  // descending). Returns false (and allocates nothing) when the job does not fit.
  bool Place(int gpus, std::vector<NodeShare>* out);
  void Release(const std::vector<NodeShare>& shares);

  // Adds a fresh node named kTempNodeName at the end, unless one with that name exists.
  void AddTempNode();
  // Removes the idle node with the largest name; if that is not the temporary node and a
  // temporary node was used before, the two swap names first (Lucid's exchange). No idle
  // node: nothing happens. Returns whether a node was removed.
  bool RemoveIdleNode();

 private:
  struct Node {
    int name;
    int free;
  };
  int FindByName(int name) const;  // Object index or -1.

  std::vector<Node> objects_;
  std::vector<int> order_;  // Lucid's node_list: object indices in list order.
  int free_gpus_ = 0;
  bool has_temp_node_ = false;
  std::vector<int> scratch_;
};

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_VC_NODES_H_
