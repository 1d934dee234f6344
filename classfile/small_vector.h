// SmallVector: a vector of trivially copyable values that keeps its first N in the object
// itself and only allocates past them.
//
// Why: a StackMapTable frame is two short lists (a method's frames rarely hold more than a
// handful of locals and one or two stack entries), and the rewriter copies frames onto every
// label of every copy of the code. As std::vectors, frames were most of the rewriter's
// allocations (docs/classfile-bench.md). Boost.Container's small_vector would do the same, but
// would put Boost into the include path of every user of the public headers for one type.
//
// The interface is the part of std::vector the library uses; iterators are plain pointers, so
// a SmallVector converts to std::span (by span's range constructor). Any operation that grows the
// vector may move its elements (as std::vector's may).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>

namespace duplex {

template <class T, uint32_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "SmallVector copies its elements as bytes");
  static_assert(N > 0);

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  SmallVector() noexcept {}
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <class It>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_t capacity() const noexcept { return capacity_; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  T& operator[](size_t i) noexcept { return data_[i]; }
  const T& operator[](size_t i) const noexcept { return data_[i]; }
  T& front() noexcept { return data_[0]; }
  const T& front() const noexcept { return data_[0]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }

  void clear() noexcept { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) grow_to(n);
  }
  void push_back(const T& v) {
    if (size_ == capacity_) {
      T copy = v;  // `v` may live in this vector
      grow_to(size_ + 1);
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = v;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  void pop_back() noexcept { --size_; }
  void resize(size_t n) { resize(n, T{}); }
  void resize(size_t n, const T& v) {
    if (n > size_) {
      T copy = v;
      reserve(n);
      std::fill(data_ + size_, data_ + n, copy);
    }
    size_ = static_cast<uint32_t>(n);
  }
  template <class It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    if (n > capacity_) grow_to(n, /*keep=*/false);
    std::copy(first, last, data_);
    size_ = static_cast<uint32_t>(n);
  }
  void assign(size_t n, const T& v) {
    T copy = v;
    if (n > capacity_) grow_to(n, /*keep=*/false);
    std::fill(data_, data_ + n, copy);
    size_ = static_cast<uint32_t>(n);
  }

  T* insert(const T* pos, const T& v) { return insert(pos, size_t{1}, v); }
  T* insert(const T* pos, size_t n, const T& v) {
    T copy = v;
    T* at = open_gap(pos, n);
    std::fill(at, at + n, copy);
    return at;
  }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  T* insert(const T* pos, It first, It last) {
    // Copied out first: the range may be part of this vector.
    SmallVector tmp(first, last);
    T* at = open_gap(pos, tmp.size());
    std::copy(tmp.begin(), tmp.end(), at);
    return at;
  }
  T* erase(const T* pos) { return erase(pos, pos + 1); }
  T* erase(const T* first, const T* last) {
    T* f = data_ + (first - data_);
    size_t n = static_cast<size_t>(last - first);
    std::memmove(f, last, static_cast<size_t>(end() - last) * sizeof(T));
    size_ -= static_cast<uint32_t>(n);
    return f;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  // Makes room for `n` elements at `pos` (moving the tail); returns where they go.
  T* open_gap(const T* pos, size_t n) {
    size_t at = static_cast<size_t>(pos - data_);
    reserve(size_ + n);
    std::memmove(data_ + at + n, data_ + at, (size_ - at) * sizeof(T));
    size_ += static_cast<uint32_t>(n);
    return data_ + at;
  }
  // At least `n` elements of room, doubling; keeps the elements unless told not to.
  void grow_to(size_t n, bool keep = true) {
    size_t cap = std::max<size_t>(n, size_t{capacity_} * 2);
    T* fresh = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (!fresh) throw std::bad_alloc();
    if (keep) std::memcpy(fresh, data_, size_ * sizeof(T));
    release();
    data_ = fresh;
    capacity_ = static_cast<uint32_t>(cap);
  }
  void release() noexcept {
    if (data_ != inline_elements()) std::free(data_);
    data_ = inline_elements();
    capacity_ = N;
  }
  // Takes `other`'s heap buffer, or copies its inline elements; leaves it empty.
  void take(SmallVector& other) noexcept {
    if (other.data_ == other.inline_elements()) {
      std::memcpy(inline_bytes_, other.inline_bytes_, other.size_ * sizeof(T));
      data_ = inline_elements();
      capacity_ = N;
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_elements();
      other.capacity_ = N;
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  // Raw bytes, not T[N]: a T with member initialisers would otherwise have all N set up on
  // every construction. The elements are created by copying into it (T is trivially copyable).
  T* inline_elements() noexcept { return reinterpret_cast<T*>(inline_bytes_); }

  alignas(T) unsigned char inline_bytes_[N * sizeof(T)];
  T* data_ = inline_elements();
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
};

}  // namespace duplex
