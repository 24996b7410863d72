//===- PoolPlacement.cpp - The pool-layout library ------------------------===//

#include "PoolPlacement.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace onyx::layout {

int64_t bestFitOffset(std::vector<std::pair<int64_t, int64_t>> &busy,
                      int64_t bytes) {
  std::sort(busy.begin(), busy.end());
  int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
  for (auto [lo, hi] : busy) {
    int64_t gap = lo - cursor;
    if (gap >= bytes && gap < bestGap) {
      best = cursor;
      bestGap = gap;
    }
    cursor = std::max(cursor, hi);
  }
  return best < 0 ? cursor : best;
}

} // namespace onyx::layout

namespace onyx::rt {

namespace {

/// Best fit by lifetime, placing the temporaries in `order`.
Placement placeInOrder(const std::vector<PlacedTemp> &temps,
                       const std::vector<size_t> &order) {
  Placement result;
  result.offsets.assign(temps.size(), 0);
  result.bestFit = true;
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t i : order) {
    const PlacedTemp &t = temps[i];
    busy.clear();
    for (size_t p : placed)
      if (temps[p].start <= t.end && t.start <= temps[p].end &&
          temps[p].bytes > 0)
        busy.push_back({result.offsets[p], result.offsets[p] + temps[p].bytes});
    int64_t best = layout::bestFitOffset(busy, t.bytes);
    result.offsets[i] = best;
    result.totalBytes = std::max(result.totalBytes, best + t.bytes);
    placed.push_back(i);
  }
  return result;
}

} // namespace

Placement placeBestFit(const std::vector<PlacedTemp> &temps) {
  // Best fit is a heuristic (the problem is NP-hard); a few placement
  // orders cost little at these sizes and the smallest layout wins. Ties
  // keep program order, so every layout is deterministic.
  using Key = std::function<bool(size_t, size_t)>;
  const Key keys[] = {
      // Largest first.
      [&](size_t a, size_t b) { return temps[a].bytes > temps[b].bytes; },
      // Largest area (bytes x lifetime) first.
      [&](size_t a, size_t b) {
        auto area = [&](size_t i) {
          return double(temps[i].bytes) *
                 double(temps[i].end - temps[i].start + 1);
        };
        return area(a) > area(b);
      },
      // Longest-lived first.
      [&](size_t a, size_t b) {
        return temps[a].end - temps[a].start > temps[b].end - temps[b].start;
      },
      // Program order (a linear scan).
      [&](size_t a, size_t b) { return temps[a].start < temps[b].start; },
  };
  Placement best;
  bool haveBest = false;
  for (const Key &key : keys) {
    std::vector<size_t> order(temps.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), key);
    Placement candidate = placeInOrder(temps, order);
    if (!haveBest || candidate.totalBytes < best.totalBytes) {
      best = std::move(candidate);
      haveBest = true;
    }
  }
  return best;
}

Placement placeByPlan(const std::vector<PlacedTemp> &temps,
                      int64_t staticRegionBytes) {
  Placement result;
  result.offsets.assign(temps.size(), 0);
  int64_t numGroups = 0;
  for (const PlacedTemp &t : temps)
    numGroups = std::max(numGroups, t.group + 1);
  std::vector<int64_t> slab(size_t(numGroups), 0);
  for (const PlacedTemp &t : temps)
    if (t.group >= 0)
      slab[size_t(t.group)] = std::max(slab[size_t(t.group)], t.bytes);
  std::vector<int64_t> groupOffset(size_t(numGroups), 0);
  int64_t cursor = staticRegionBytes;
  for (int64_t g = 0; g < numGroups; ++g) {
    groupOffset[size_t(g)] = cursor;
    cursor += slab[size_t(g)];
  }
  for (size_t i = 0; i < temps.size(); ++i)
    result.offsets[i] = temps[i].group >= 0
                            ? groupOffset[size_t(temps[i].group)]
                            : temps[i].staticOffset;
  result.totalBytes = cursor;
  return result;
}

Placement placeTemps(const std::vector<PlacedTemp> &temps,
                     int64_t staticRegionBytes) {
  Placement fit = placeBestFit(temps);
  Placement plan = placeByPlan(temps, staticRegionBytes);
  return fit.totalBytes <= plan.totalBytes ? fit : plan;
}

} // namespace onyx::rt
