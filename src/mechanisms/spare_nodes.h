// SpareNodes: the nodes that erasures took out of node-based sets (std::set), kept to
// hold later insertions into sets of the same type. A policy's queue and running index
// take in and give back a job at nearly every event; with the nodes kept, they allocate
// nothing once warm (on a busy cluster malloc and free were ~5 % of Tiresias' run).
// The sets' contents and order are exactly those of plain insert and erase: only where
// a node's memory comes from changes.
#ifndef SCHEDKIT_MECHANISMS_SPARE_NODES_H_
#define SCHEDKIT_MECHANISMS_SPARE_NODES_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace schedkit {

template <class Set>
class SpareNodes {
 public:
  using iterator = typename Set::iterator;
  using value_type = typename Set::value_type;

  SpareNodes() = default;
  // A copy keeps no nodes: they are storage, not state (a cloned policy's sets allocate
  // their own).
  SpareNodes(const SpareNodes&) {}
  SpareNodes& operator=(const SpareNodes&) { return *this; }
  SpareNodes(SpareNodes&&) = default;
  SpareNodes& operator=(SpareNodes&&) = default;

  // set->insert(value), in a kept node if there is one.
  std::pair<iterator, bool> Insert(Set* set, const value_type& value) {
    if (nodes_.empty()) return set->insert(value);
    auto result = set->insert(KeptNodeHolding(value));
    if (!result.inserted) nodes_.push_back(std::move(result.node));
    return {result.position, result.inserted};
  }

  // set->insert(hint, value) (an insertion just before a right `hint` takes no search),
  // in a kept node if there is one. Returns where `value` is.
  iterator InsertNear(Set* set, typename Set::const_iterator hint, const value_type& value) {
    if (nodes_.empty()) return set->insert(hint, value);
    typename Set::node_type node = KeptNodeHolding(value);
    iterator at = set->insert(hint, std::move(node));
    if (!node.empty()) nodes_.push_back(std::move(node));  // Already there: left to us.
    return at;
  }

  // set->erase(at), keeping the node (up to kMaxKept of them).
  void Erase(Set* set, iterator at) {
    if (nodes_.size() >= kMaxKept) {
      set->erase(at);
      return;
    }
    nodes_.push_back(set->extract(at));
  }
  // set->erase(value); returns whether it was there.
  bool Erase(Set* set, const value_type& value) {
    auto at = set->find(value);
    if (at == set->end()) return false;
    Erase(set, at);
    return true;
  }

 private:
  // The last kept node, holding `value`. REQUIRES: a node is kept.
  typename Set::node_type KeptNodeHolding(const value_type& value) {
    typename Set::node_type node = std::move(nodes_.back());
    nodes_.pop_back();
    node.value() = value;
    return node;
  }

  // Enough for the sets' ups and downs between events; a set that shrinks for good
  // gives the rest back to malloc.
  static constexpr size_t kMaxKept = 256;
  std::vector<typename Set::node_type> nodes_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_SPARE_NODES_H_
