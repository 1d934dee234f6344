// Per-thread spare buffers for per-method structures (the code IR, the rewriter's Cfg, DupPlan,
// the duplicator's tables, the site lists), which would otherwise allocate a dozen vectors per
// method: a structure takes a thread's spare vector (empty, with its capacity) and gives it back
// when done. Two structures alive at once on a thread are fine: the second one finds no spare
// and allocates (or takes the next one of a SpareStack). A buffer past kKeepBytes (a huge
// method) is freed rather than kept, since the JVMTI agent rewrites on any application thread.
#pragma once

#include <cstddef>
#include <vector>

namespace duplex {
namespace scratch {

inline constexpr size_t kKeepBytes = 256 * 1024;

// `v` (empty) takes the capacity of the spare, which is left without one.
template <class T>
void take(std::vector<T>& v, std::vector<T>& spare) {
  v.swap(spare);
  v.clear();
}

// `v` becomes the spare if it has more room than the current spare, within kKeepBytes.
template <class T>
void give_back(std::vector<T>& v, std::vector<T>& spare) {
  if (v.capacity() <= spare.capacity() || v.capacity() * sizeof(T) > kKeepBytes) return;
  v.clear();
  v.swap(spare);
}

// take() when `taking`, else give_back(): one list of a structure's buffers serves both ends
// of its life.
template <class T>
void exchange(std::vector<T>& v, std::vector<T>& spare, bool taking) {
  if (taking) {
    take(v, spare);
  } else {
    give_back(v, spare);
  }
}

// A vector borrowed from a spare for the length of a scope.
template <class T>
class Borrowed {
 public:
  explicit Borrowed(std::vector<T>& spare) : spare_(spare) { take(vec, spare_); }
  ~Borrowed() { give_back(vec, spare_); }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;

  std::vector<T> vec;

 private:
  std::vector<T>& spare_;
};

// A few spares of one type, for structures of which several are alive at once (a rewritten
// method holds its original IR and the IRs of its checking method and twin).
template <class T, size_t N = 4>
class SpareStack {
 public:
  // `v` (empty) takes the roomiest spare left, if any.
  void take(std::vector<T>& v) {
    v.clear();
    if (count_ == 0) return;
    v.swap(spares_[--count_]);
  }
  // Keeps `v`'s capacity (emptied) while there is a free place and it is within kKeepBytes.
  void give_back(std::vector<T>& v) {
    if (count_ == N || v.capacity() == 0 || v.capacity() * sizeof(T) > kKeepBytes) return;
    v.clear();
    v.swap(spares_[count_++]);
  }

 private:
  std::vector<T> spares_[N];
  size_t count_ = 0;
};

// The calling thread's T, for spares that structures give back from their destructors. A
// structure may outlive its thread's spares (destroyed at thread exit), so the giving side asks
// existing(), which never creates one and is null once the thread's T is gone.
template <class T>
class PerThread {
 public:
  // The thread's T, created on first use; null only during the thread's teardown.
  static T* get() {
    if (state_ == kGone) return nullptr;
    thread_local Holder holder;
    return &holder.value;
  }
  // The thread's T if it exists and is not destroyed yet.
  static T* existing() { return state_ == kAlive ? get() : nullptr; }

 private:
  enum State : unsigned char { kNever, kAlive, kGone };
  struct Holder {
    Holder() { state_ = kAlive; }
    ~Holder() { state_ = kGone; }
    T value;
  };
  // A plain value: readable to the very end of the thread.
  static inline thread_local State state_ = kNever;
};

}  // namespace scratch

}  // namespace duplex
