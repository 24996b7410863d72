//===- PoolPlacement.h - The pool-layout library ----------------*- C++ -*-===//
//
// The pool-layout library (onyx_pool_layout: no MLIR, linked by the runtime
// and by the compiler's onyx-pool-allocations): the best-fit search both
// halves of the memory plan use (bestFitOffset), and the run-time layout.
//
// The run-time half of onyx-pool-allocations{placement=runtime}: at a
// domain's anchor every aligned size is known, so the layout can be chosen
// for the sizes of this call instead of for all shapes at once.
//
// Two layouts are computed and the smaller one wins:
//   * best fit by lifetime at the actual sizes: temporaries are placed one
//     by one, each into the smallest gap left by the already placed
//     temporaries whose lifetimes overlap its own (else above them all),
//     in four orders (largest, largest bytes x lifetime, longest-lived,
//     program order), keeping the smallest layout;
//   * the compile-time plan evaluated at the same sizes: [static region |
//     group slabs], each slab the largest member of its group.
// Taking the minimum keeps the guarantee of the compile-time plan (never
// above the IREE-style scheme) while best fit reaches the live-bytes bound
// on the graphs where lifetime-only grouping cannot (docs/memory-planning.md).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_POOLPLACEMENT_H
#define ONYX_RUNTIME_POOLPLACEMENT_H

#include <cstdint>
#include <utility>
#include <vector>

namespace onyx::layout {

/// The best-fit search: the offset of the smallest gap between the busy
/// [lo, hi) byte ranges that holds `bytes` (the first such gap on a tie),
/// else the end of the highest range (0 when there is none). Gaps start at
/// offset 0. Sorts `busy`. Used by the compile-time plan (static region,
/// onyx::pool::planPool) and by the run-time best fit (placeBestFit).
int64_t bestFitOffset(std::vector<std::pair<int64_t, int64_t>> &busy,
                      int64_t bytes);

} // namespace onyx::layout

namespace onyx::rt {

struct PlacedTemp {
  /// Inclusive lifetime (positions in the entry function).
  int64_t start = 0, end = 0;
  /// Aligned byte size at this call's shapes.
  int64_t bytes = 0;
  /// Compile-time plan: group id, or -1 for the static region.
  int64_t group = -1;
  /// Compile-time plan: offset in the static region (group == -1).
  int64_t staticOffset = 0;
};

struct Placement {
  std::vector<int64_t> offsets;
  int64_t totalBytes = 0;
  /// True when best fit won over the compile-time plan.
  bool bestFit = false;
};

/// Best fit by lifetime at the given sizes (the best of several orders).
Placement placeBestFit(const std::vector<PlacedTemp> &temps);
/// The compile-time plan at the given sizes.
Placement placeByPlan(const std::vector<PlacedTemp> &temps,
                      int64_t staticRegionBytes);
/// The smaller of the two (best fit on a tie).
Placement placeTemps(const std::vector<PlacedTemp> &temps,
                     int64_t staticRegionBytes);

} // namespace onyx::rt

#endif // ONYX_RUNTIME_POOLPLACEMENT_H
