//===- PoolPlanning.cpp - Lifetime-only packing of temporaries ------------===//

#include "onyx/Transforms/PoolPlanning.h"

#include <algorithm>
#include <numeric>

namespace onyx::pool {
namespace {

/// Best fit: each static item, largest first, goes to the lowest offset
/// where it overlaps in memory no placed item whose lifetime it overlaps.
void planStatic(const std::vector<Item> &items, int64_t alignment,
                Plan &plan) {
  std::vector<int64_t> order;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].staticBytes)
      order.push_back(int64_t(i));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return *items[a].staticBytes > *items[b].staticBytes;
  });
  std::vector<int64_t> placed;
  for (int64_t i : order) {
    int64_t size = alignTo(*items[i].staticBytes, alignment);
    // Busy ranges of lifetime-overlapping placed items, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (int64_t p : placed)
      if (overlaps(items[i], items[p]))
        busy.push_back({plan.staticOffset[p],
                        plan.staticOffset[p] +
                            alignTo(*items[p].staticBytes, alignment)});
    std::sort(busy.begin(), busy.end());
    // The smallest gap that fits; else the end.
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (auto [lo, hi] : busy) {
      if (lo - cursor >= size && lo - cursor < bestGap) {
        best = cursor;
        bestGap = lo - cursor;
      }
      cursor = std::max(cursor, hi);
    }
    if (best < 0)
      best = cursor;
    plan.staticOffset[i] = best;
    plan.staticBytes = std::max(plan.staticBytes, best + size);
    placed.push_back(i);
  }
}

void planDynamic(const std::vector<Item> &items, Scheme scheme, Plan &plan) {
  std::vector<int64_t> order;
  for (size_t i = 0; i < items.size(); ++i)
    if (!items[i].staticBytes)
      order.push_back(int64_t(i));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return items[a].start < items[b].start;
  });
  for (int64_t i : order) {
    int64_t chosen = -1;
    bool chosenSameClass = false;
    for (size_t g = 0; g < plan.groups.size(); ++g) {
      const auto &members = plan.groups[g];
      bool disjoint = std::none_of(members.begin(), members.end(),
                                   [&](int64_t m) {
                                     return overlaps(items[i], items[m]);
                                   });
      if (!disjoint)
        continue;
      bool sameClass = std::all_of(members.begin(), members.end(),
                                   [&](int64_t m) {
                                     return items[m].sizeClass ==
                                            items[i].sizeClass;
                                   });
      if (scheme == Scheme::SameSizeOnly && !sameClass)
        continue;
      // Prefer a group that needs no run-time maximum.
      if (chosen < 0 || (sameClass && !chosenSameClass)) {
        chosen = int64_t(g);
        chosenSameClass = sameClass;
      }
    }
    if (chosen < 0) {
      chosen = int64_t(plan.groups.size());
      plan.groups.emplace_back();
    }
    plan.groups[chosen].push_back(i);
    plan.group[i] = chosen;
  }
}

} // namespace

Plan planPool(const std::vector<Item> &items, int64_t alignment,
              Scheme scheme) {
  Plan plan;
  plan.staticOffset.assign(items.size(), 0);
  plan.group.assign(items.size(), -1);
  planStatic(items, alignment, plan);
  planDynamic(items, scheme, plan);
  return plan;
}

} // namespace onyx::pool
