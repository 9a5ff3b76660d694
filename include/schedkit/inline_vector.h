// InlineVector<T, N>: a vector of trivially copyable values whose first N live inside the
// object, so that a list that rarely grows past N (a job's placement: one node nearly
// always) is copied, moved and destroyed without touching the heap. Past N the values
// move to the heap, as std::vector's do, and stay there until the vector is destroyed.
//
// The subset of std::vector's interface the code base uses: iterators are pointers, and
// every operation that grows the vector invalidates them.
#ifndef SCHEDKIT_INLINE_VECTOR_H_
#define SCHEDKIT_INLINE_VECTOR_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace schedkit {

template <class T, size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "InlineVector copies its values with memcpy");
  static_assert(N >= 1 && N * sizeof(T) >= sizeof(T*), "the inline room holds the heap pointer");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVector() = default;
  InlineVector(std::initializer_list<T> values) { Assign(values.begin(), values.size()); }
  InlineVector(const InlineVector& o) { Assign(o.data(), o.size_); }
  InlineVector(InlineVector&& o) noexcept { Steal(&o); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) {
      size_ = 0;
      Assign(o.data(), o.size_);
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      Free();
      Steal(&o);
    }
    return *this;
  }
  InlineVector& operator=(std::initializer_list<T> values) {
    size_ = 0;
    Assign(values.begin(), values.size());
    return *this;
  }
  ~InlineVector() { Free(); }

  T* data() { return on_heap() ? heap() : inline_data(); }
  const T* data() const { return on_heap() ? heap() : inline_data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // N while the values are inline.
  size_t capacity() const { return capacity_; }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  T& operator[](size_t i) {
    assert(i < size_);
    return data()[i];
  }
  const T& operator[](size_t i) const {
    assert(i < size_);
    return data()[i];
  }
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("InlineVector::at");
    return data()[i];
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void clear() { size_ = 0; }  // Keeps the storage, as std::vector does.
  void reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  void push_back(const T& v) {
    if (size_ == capacity_) {
      const T copy = v;  // `v` may be one of ours, and Grow moves them.
      Grow(std::max<size_t>(2 * size_t{capacity_}, N + 1));
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = v;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }

  bool operator==(const InlineVector& o) const {
    return std::equal(begin(), end(), o.begin(), o.end());
  }

 private:
  bool on_heap() const { return capacity_ > N; }
  T* inline_data() { return std::launder(reinterpret_cast<T*>(storage_)); }
  const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(storage_)); }
  T* heap() const {
    T* p;
    std::memcpy(&p, storage_, sizeof(p));
    return p;
  }
  void set_heap(T* p) { std::memcpy(storage_, &p, sizeof(p)); }

  // Appends n values to an empty vector. REQUIRES: size_ == 0; `from` is not ours.
  void Assign(const T* from, size_t n) {
    reserve(n);
    if (n != 0) std::memcpy(static_cast<void*>(data()), from, n * sizeof(T));
    size_ = static_cast<uint32_t>(n);
  }
  // REQUIRES: n > capacity_ (>= size_).
  void Grow(size_t n) {
    T* grown = static_cast<T*>(::operator new(n * sizeof(T)));
    std::copy(begin(), end(), grown);
    Free();
    set_heap(grown);
    capacity_ = static_cast<uint32_t>(n);
  }
  void Free() {
    if (on_heap()) ::operator delete(heap());
    capacity_ = N;
  }
  // REQUIRES: our storage is free.
  void Steal(InlineVector* o) {
    std::memcpy(storage_, o->storage_, sizeof(storage_));
    size_ = o->size_;
    capacity_ = o->capacity_;
    o->size_ = 0;
    o->capacity_ = N;
  }

  alignas(T) alignas(T*) unsigned char storage_[N * sizeof(T)];  // N values, or the heap pointer.
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
};

}  // namespace schedkit

#endif  // SCHEDKIT_INLINE_VECTOR_H_
