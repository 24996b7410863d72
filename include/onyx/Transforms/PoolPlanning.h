//===- PoolPlanning.h - Lifetime-only packing of temporaries ----*- C++ -*-===//
//
// The planning half of onyx-pool-allocations, free of IR so it can be
// tested on random interval sets (test/unit/PoolPlanningTest.cpp).
//
// A domain's pool is laid out as
//
//   [ static region | group 0 slab | group 1 slab | ... ]
//
// Static-size temporaries get fixed offsets in the static region by
// best-fit over their lifetimes. Run-time-sized temporaries are put into
// groups whose members have pairwise disjoint lifetimes; all members of a
// group share the group's offset, and the group's slab is the run-time
// maximum of their aligned footprints (no maximum is needed for members of
// one size class, i.e. provably equal sizes).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_TRANSFORMS_POOLPLANNING_H
#define ONYX_TRANSFORMS_POOLPLANNING_H

#include <cstdint>
#include <optional>
#include <vector>

namespace onyx::pool {

struct Item {
  /// Lifetime: inclusive positions in program order.
  int64_t start = 0, end = 0;
  /// Byte size when known at compile time.
  std::optional<int64_t> staticBytes;
  /// For run-time sizes: items with the same class have provably equal
  /// sizes (same SSA value after CSE, or equal by DimAnalysis).
  int64_t sizeClass = -1;
};

enum class Scheme {
  /// Onyx: disjoint lifetimes share, slab = max of the footprints.
  Lifetime,
  /// IREE-style: run-time sizes share only within one size class.
  SameSizeOnly,
};

struct Plan {
  /// Per item: offset in the static region (static items only).
  std::vector<int64_t> staticOffset;
  /// Bytes of the static region (aligned).
  int64_t staticBytes = 0;
  /// Per item: its group (run-time-sized items only), else -1.
  std::vector<int64_t> group;
  /// Members of each group.
  std::vector<std::vector<int64_t>> groups;
};

inline int64_t alignTo(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

inline bool overlaps(const Item &a, const Item &b) {
  return a.start <= b.end && b.start <= a.end;
}

Plan planPool(const std::vector<Item> &items, int64_t alignment, Scheme scheme);

} // namespace onyx::pool

#endif // ONYX_TRANSFORMS_POOLPLANNING_H
