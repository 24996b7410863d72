//===- PoolPlanning.cpp - Lifetime-only packing of temporaries ------------===//

#include "onyx/Transforms/PoolPlanning.h"

#include "PoolPlacement.h"

#include <algorithm>
#include <numeric>

namespace onyx::pool {
namespace {

/// Best fit: each static item, largest first, goes to the lowest offset
/// where it overlaps in memory no placed item whose lifetime it overlaps.
void planStatic(const std::vector<Item> &items, int64_t alignment, Plan &plan) {
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
        busy.push_back(
            {plan.staticOffset[p],
             plan.staticOffset[p] + alignTo(*items[p].staticBytes, alignment)});
    // The smallest gap that fits; else the end (the pool-layout library's
    // search, shared with the run-time best fit).
    int64_t best = layout::bestFitOffset(busy, size);
    plan.staticOffset[i] = best;
    plan.staticBytes = std::max(plan.staticBytes, best + size);
    placed.push_back(i);
  }
}

/// Run-time sizes. First the IREE-style grouping: members of one size class
/// with pairwise disjoint lifetimes share a slab of exactly that size. Then,
/// for the lifetime scheme, whole groups merge when no member of one
/// overlaps any member of the other; the merged slab is the maximum of the
/// two, never more than their sum, so the plan never asks for more than the
/// IREE-style one at any shape.
void planDynamic(const std::vector<Item> &items, Scheme scheme, Plan &plan) {
  std::vector<int64_t> order;
  for (size_t i = 0; i < items.size(); ++i)
    if (!items[i].staticBytes)
      order.push_back(int64_t(i));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return items[a].start < items[b].start;
  });
  auto disjointFrom = [&](int64_t i, const std::vector<int64_t> &members) {
    return std::none_of(members.begin(), members.end(), [&](int64_t m) {
      return overlaps(items[i], items[m]);
    });
  };
  std::vector<std::vector<int64_t>> groups;
  for (int64_t i : order) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) {
      return items[g.front()].sizeClass == items[i].sizeClass &&
             disjointFrom(i, g);
    });
    if (it == groups.end())
      groups.push_back({i});
    else
      it->push_back(i);
  }
  if (scheme == Scheme::Lifetime) {
    std::vector<std::vector<int64_t>> merged;
    for (auto &group : groups) {
      auto it = std::find_if(merged.begin(), merged.end(), [&](const auto &m) {
        return std::all_of(group.begin(), group.end(),
                           [&](int64_t i) { return disjointFrom(i, m); });
      });
      if (it == merged.end())
        merged.push_back(std::move(group));
      else
        it->insert(it->end(), group.begin(), group.end());
    }
    groups = std::move(merged);
  }
  for (size_t g = 0; g < groups.size(); ++g)
    for (int64_t i : groups[g])
      plan.group[i] = int64_t(g);
  plan.groups = std::move(groups);
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
