// Tests for small_vector.h: the inline elements, the move to the heap past them, and the
// std::vector operations frames use, each checked against std::vector doing the same.
#include <catch2/catch.hpp>

#include <span>
#include <vector>

#include "classfile/small_vector.h"

using namespace duplex;

namespace {

using Small = SmallVector<int, 3>;

std::vector<int> as_vector(const Small& s) {
  return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("SmallVector keeps its first elements inline and grows past them", "[small_vector]") {
  Small s;
  CHECK(s.empty());
  CHECK(s.capacity() == 3);
  const int* inline_data = s.data();
  for (int i = 0; i < 3; ++i) s.push_back(i);
  CHECK(s.data() == inline_data);
  s.push_back(3);
  CHECK(s.data() != inline_data);
  CHECK(s.capacity() >= 4);
  CHECK(as_vector(s) == std::vector<int>{0, 1, 2, 3});
  s.pop_back();
  CHECK(s.back() == 2);
  CHECK(s.front() == 0);
  s.clear();
  CHECK(s.empty());
}

TEST_CASE("SmallVector copies and moves inline and heap storage", "[small_vector]") {
  for (int n : {2, 3, 4, 9}) {
    Small a;
    for (int i = 0; i < n; ++i) a.push_back(i * 10);
    Small copy(a);
    CHECK(copy == a);
    Small moved(std::move(copy));
    CHECK(moved == a);
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    Small assigned{7};
    assigned = a;
    CHECK(assigned == a);
    Small move_assigned{1, 2, 3, 4, 5};
    move_assigned = std::move(assigned);
    CHECK(move_assigned == a);
    move_assigned.push_back(99);  // the taken storage is usable
    CHECK(move_assigned.size() == static_cast<size_t>(n) + 1);
    CHECK(move_assigned.back() == 99);
  }
}

TEST_CASE("SmallVector insert, erase, resize and assign match std::vector", "[small_vector]") {
  Small s{1, 2, 3};
  std::vector<int> v{1, 2, 3};
  s.insert(s.begin() + 1, 7);
  v.insert(v.begin() + 1, 7);
  CHECK(as_vector(s) == v);
  s.insert(s.end(), size_t{2}, 0);
  v.insert(v.end(), size_t{2}, 0);
  CHECK(as_vector(s) == v);
  // A range out of the vector itself, into the vector (what dup_x2 does to a stack).
  s.insert(s.begin(), s.end() - 3, s.end());
  std::vector<int> tail(v.end() - 3, v.end());
  v.insert(v.begin(), tail.begin(), tail.end());
  CHECK(as_vector(s) == v);
  s.erase(s.begin() + 2);
  v.erase(v.begin() + 2);
  CHECK(as_vector(s) == v);
  s.erase(s.begin(), s.begin() + 3);
  v.erase(v.begin(), v.begin() + 3);
  CHECK(as_vector(s) == v);
  s.resize(8, 5);
  v.resize(8, 5);
  CHECK(as_vector(s) == v);
  s.resize(2);
  v.resize(2);
  CHECK(as_vector(s) == v);
  int more[] = {4, 4, 4, 4, 4};
  s.assign(std::begin(more), std::end(more));
  CHECK(as_vector(s) == std::vector<int>(5, 4));
  s.assign(size_t{1}, 6);
  CHECK(as_vector(s) == std::vector<int>{6});
  // push_back of one of its own elements while growing.
  Small t{1, 2, 3};
  t.push_back(t[0]);
  CHECK(as_vector(t) == std::vector<int>{1, 2, 3, 1});
}

TEST_CASE("SmallVector views as a span and compares by elements", "[small_vector]") {
  Small a{1, 2, 3, 4};
  std::span<const int> view = a;
  CHECK(view.size() == 4);
  CHECK(view[3] == 4);
  CHECK(a == Small{1, 2, 3, 4});
  CHECK_FALSE(a == Small{1, 2, 3});
  CHECK_FALSE(a == Small{1, 2, 3, 5});
}
