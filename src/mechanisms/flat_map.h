// FlatMap: int64 key -> V in one array (open addressing, linear probing, deletion by
// backward shift). For maps that change at every start and completion (the engine's
// bookings, a policy's queue by id): a node-based std::unordered_map allocated and freed
// a node each time. Callers look up, insert and erase by key; the one walk over all entries
// (ForEachUnordered) says that its order must not reach results.
#ifndef SCHEDKIT_MECHANISMS_FLAT_MAP_H_
#define SCHEDKIT_MECHANISMS_FLAT_MAP_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace schedkit {

template <class V>
class FlatMap {
 public:
  size_t size() const { return size_; }

  // The value of `key`, or null.
  V* Find(int64_t key) {
    if (size_ == 0) return nullptr;
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  const V* Find(int64_t key) const { return const_cast<FlatMap*>(this)->Find(key); }

  // Inserts `key` with `value` if it is absent. Returns its value and whether it was
  // inserted. The pointer is valid until the next Insert or Erase.
  std::pair<V*, bool> Insert(int64_t key, V value) {
    if (V* v = Find(key)) return {v, false};
    if (2 * (size_ + 1) > slots_.size()) Grow();
    size_t i = Home(key);
    while (slots_[i].used) i = (i + 1) & mask_;
    slots_[i] = Slot{key, true, std::move(value)};
    ++size_;
    return {&slots_[i].value, true};
  }

  // Calls f(key, value) for every entry in the table's order, which depends on the
  // history of inserts and erases: only for callers whose results cannot depend on the
  // order (such as inserting every entry into an ordered set).
  template <class F>
  void ForEachUnordered(F f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }
  template <class F>
  void ForEachUnordered(F f) {  // f(key, value&): may change the values, not the keys.
    for (Slot& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }

  // Removes every key, keeping the storage (for per-decision scratch maps).
  void Clear() {
    if (size_ == 0) return;
    for (Slot& s : slots_) s = Slot();
    size_ = 0;
  }

  // Removes `key`; false if it was absent.
  bool Erase(int64_t key) {
    if (size_ == 0) return false;
    size_t i = Home(key);
    while (true) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
      i = (i + 1) & mask_;
    }
    // Move back every later entry of the run whose home is not between the hole and it.
    for (size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const size_t home = Home(slots_[j].key);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = std::move(slots_[j]);
        i = j;
      }
    }
    slots_[i].used = false;
    slots_[i].value = V();
    --size_;
    return true;
  }

 private:
  // `used` beside `key`: a probe reads both from the slot's first cache line, whatever
  // the value's size.
  struct Slot {
    int64_t key = 0;
    bool used = false;
    V value{};
  };

  size_t Home(int64_t key) const {
    return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    const size_t n = old.empty() ? 16 : 2 * old.size();
    slots_.assign(n, Slot());
    mask_ = n - 1;
    shift_ = 64;
    for (size_t s = n; s > 1; s >>= 1) --shift_;  // The top log2(n) bits of the product.
    size_ = 0;
    for (Slot& s : old) {
      if (!s.used) continue;
      size_t i = Home(s.key);
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_FLAT_MAP_H_
