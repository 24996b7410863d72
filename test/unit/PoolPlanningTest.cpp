//===- PoolPlanningTest.cpp - Properties of onyx::pool::planPool ----------===//
//
// The planning half of onyx-pool-allocations (lib/Transforms/PoolPlanning.cpp)
// is free of IR, so its plans can be checked on random interval sets; so is
// the pool-layout library both halves share (runtime/src/layout/: the
// best-fit search, the run-time placement), checked here too.
//
// A plan is evaluated the way the pass emits it (PoolAllocations.cpp,
// emitDomain): the domain's pool is
//
//   [ static region | group 0 slab | group 1 slab | ... ]
//
// static items at their planned offsets inside the static region; every
// member of group g at the group's offset, which is the static region plus
// the slabs of groups 0..g-1; a group's slab is the maximum aligned
// footprint of its members at the concrete sizes. Run-time sizes are drawn
// per size class (items of one class have equal sizes, as the pass assumes),
// including 0 and huge values; the layout arithmetic is done in 128 bits so
// that huge sizes cannot wrap in the checker.
//
// Properties, for every plan and every evaluation:
//   - no two items whose lifetimes overlap overlap in memory;
//   - every item lies inside its slab / the static region;
//   - structure: each run-time-sized item is in exactly one group, static
//     items in none; group members are pairwise lifetime-disjoint; static
//     offsets are aligned and the static region is aligned;
//   - Scheme::SameSizeOnly groups hold one size class only;
//   - Scheme::Lifetime uses as few groups as possible (the maximum number of
//     run-time-sized items live at one point).
//
//===----------------------------------------------------------------------===//

#include "onyx/Transforms/PoolPlanning.h"

#include "PoolPlacement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace onyx::pool;

namespace {

using u128 = unsigned __int128;

std::string str(u128 v) {
  if (v == 0)
    return "0";
  std::string s;
  while (v) {
    s.push_back(char('0' + int(v % 10)));
    v /= 10;
  }
  return std::string(s.rbegin(), s.rend());
}

u128 alignUp(u128 bytes, int64_t alignment) {
  u128 a = u128(alignment);
  return (bytes + a - 1) / a * a;
}

std::string describe(const std::vector<Item> &items, int64_t alignment,
                     Scheme scheme) {
  std::ostringstream os;
  os << "alignment " << alignment << ", scheme "
     << (scheme == Scheme::Lifetime ? "lifetime" : "same-size-only") << ", "
     << items.size() << " items:";
  for (size_t i = 0; i < items.size(); ++i) {
    const Item &it = items[i];
    os << "\n  #" << i << " [" << it.start << ", " << it.end << "] ";
    if (it.staticBytes)
      os << "static " << *it.staticBytes;
    else
      os << "class " << it.sizeClass;
  }
  return os.str();
}

/// A plan evaluated at concrete sizes.
struct Layout {
  std::vector<u128> offset, bytes; // per item; bytes = aligned footprint
  std::vector<u128> groupOffset, slab;
  u128 total = 0; // what onyx.get_pool requests
};

Layout evaluate(const std::vector<Item> &items, const Plan &plan,
                int64_t alignment, const std::vector<u128> &classBytes) {
  Layout l;
  l.offset.assign(items.size(), 0);
  l.bytes.assign(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i)
    l.bytes[i] = items[i].staticBytes
                     ? alignUp(u128(*items[i].staticBytes), alignment)
                     : alignUp(classBytes.at(items[i].sizeClass), alignment);
  u128 cursor = u128(plan.staticBytes);
  for (const auto &members : plan.groups) {
    u128 slab = 0;
    for (int64_t m : members)
      slab = std::max(slab, l.bytes[m]);
    l.groupOffset.push_back(cursor);
    l.slab.push_back(slab);
    cursor += slab;
  }
  l.total = cursor;
  for (size_t i = 0; i < items.size(); ++i)
    l.offset[i] = items[i].staticBytes ? u128(plan.staticOffset[i])
                                       : l.groupOffset[plan.group[i]];
  return l;
}

/// The structural properties of a plan (independent of concrete sizes).
void checkStructure(const std::vector<Item> &items, const Plan &plan,
                    int64_t alignment, Scheme scheme, const std::string &ctx) {
  ASSERT_EQ(plan.group.size(), items.size()) << ctx;
  ASSERT_EQ(plan.staticOffset.size(), items.size()) << ctx;
  EXPECT_GE(plan.staticBytes, 0) << ctx;
  EXPECT_EQ(plan.staticBytes % alignment, 0) << ctx;
  std::vector<int> seen(items.size(), 0);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    EXPECT_FALSE(plan.groups[g].empty()) << "group " << g << " empty\n" << ctx;
    for (int64_t m : plan.groups[g]) {
      ASSERT_GE(m, 0) << ctx;
      ASSERT_LT(size_t(m), items.size()) << ctx;
      ++seen[m];
      EXPECT_FALSE(items[m].staticBytes.has_value())
          << "static item #" << m << " in group " << g << "\n"
          << ctx;
      EXPECT_EQ(plan.group[m], int64_t(g)) << "item #" << m << "\n" << ctx;
    }
    const auto &members = plan.groups[g];
    for (size_t a = 0; a < members.size(); ++a)
      for (size_t b = a + 1; b < members.size(); ++b)
        EXPECT_FALSE(overlaps(items[members[a]], items[members[b]]))
            << "group " << g << " holds #" << members[a] << " and #"
            << members[b] << " whose lifetimes overlap\n"
            << ctx;
    if (scheme == Scheme::SameSizeOnly) {
      for (int64_t m : members)
        EXPECT_EQ(items[m].sizeClass, items[members.front()].sizeClass)
            << "same-size-only group " << g << " mixes size classes\n"
            << ctx;
    }
  }
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].staticBytes) {
      EXPECT_EQ(plan.group[i], -1) << "static item #" << i << "\n" << ctx;
      EXPECT_EQ(seen[i], 0) << ctx;
      EXPECT_GE(plan.staticOffset[i], 0) << ctx;
      EXPECT_EQ(plan.staticOffset[i] % alignment, 0)
          << "static item #" << i << " misaligned\n"
          << ctx;
    } else {
      EXPECT_EQ(seen[i], 1)
          << "run-time item #" << i << " is in " << seen[i] << " groups\n"
          << ctx;
    }
  }
}

/// The memory properties of a plan evaluated at `classBytes`.
void checkLayout(const std::vector<Item> &items, const Plan &plan,
                 int64_t alignment, const std::vector<u128> &classBytes,
                 const std::string &ctx) {
  Layout l = evaluate(items, plan, alignment, classBytes);
  std::ostringstream sizes;
  sizes << "class sizes:";
  for (u128 s : classBytes)
    sizes << " " << str(s);
  std::string where = ctx + "\n" + sizes.str();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].staticBytes) {
      EXPECT_LE(l.offset[i] + l.bytes[i], u128(plan.staticBytes))
          << "static item #" << i << " exceeds the static region\n"
          << where;
    } else {
      int64_t g = plan.group[i];
      EXPECT_LE(l.bytes[i], l.slab[g])
          << "item #" << i << " does not fit the slab of group " << g << "\n"
          << where;
      EXPECT_GE(l.offset[i], u128(plan.staticBytes)) << where;
      EXPECT_LE(l.offset[i] + l.bytes[i], l.total) << where;
    }
  }
  for (size_t i = 0; i < items.size(); ++i)
    for (size_t j = i + 1; j < items.size(); ++j) {
      if (!overlaps(items[i], items[j]) || l.bytes[i] == 0 || l.bytes[j] == 0)
        continue;
      bool disjoint = l.offset[i] + l.bytes[i] <= l.offset[j] ||
                      l.offset[j] + l.bytes[j] <= l.offset[i];
      EXPECT_TRUE(disjoint)
          << "#" << i << " at [" << str(l.offset[i]) << ", "
          << str(l.offset[i] + l.bytes[i]) << ") and #" << j << " at ["
          << str(l.offset[j]) << ", " << str(l.offset[j] + l.bytes[j])
          << ") overlap in memory and in time\n"
          << where;
    }
}

/// Maximum number of run-time-sized items live at one point.
int64_t maxDynamicClique(const std::vector<Item> &items) {
  std::vector<std::pair<int64_t, int>> events;
  for (const Item &it : items)
    if (!it.staticBytes) {
      events.push_back({it.start, +1});
      events.push_back({it.end + 1, -1});
    }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (auto [pos, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

/// Bytes live at the worst point, at concrete sizes (the lower bound).
u128 maxLive(const std::vector<Item> &items, const Layout &l) {
  std::map<int64_t, __int128> delta;
  for (size_t i = 0; i < items.size(); ++i) {
    delta[items[i].start] += __int128(l.bytes[i]);
    delta[items[i].end + 1] -= __int128(l.bytes[i]);
  }
  __int128 live = 0, peak = 0;
  for (auto [pos, d] : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return u128(peak);
}

struct Generator {
  std::mt19937_64 rng;
  explicit Generator(uint64_t seed) : rng(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) { // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }

  int64_t staticSize() {
    switch (uniform(0, 5)) {
    case 0:
      return 0;
    case 1:
      return uniform(1, 16);
    case 2:
      return uniform(1, 4) * 256;
    case 3:
      return uniform(1, 4096);
    case 4:
      return uniform(1, int64_t(1) << 24);
    default:
      return uniform(1, int64_t(1) << 40);
    }
  }

  u128 runtimeSize() {
    switch (uniform(0, 6)) {
    case 0:
      return 0;
    case 1:
      return u128(uniform(1, 300));
    case 2:
      return u128(uniform(1, 64) * 256);
    case 3:
      return u128(uniform(1, int64_t(1) << 20));
    case 4:
      return u128(int64_t(1) << 40) + u128(uniform(0, 255));
    case 5: // huge: near the top of int64
      return u128(INT64_MAX) - u128(uniform(0, 1 << 20));
    default:
      return u128(uniform(1, int64_t(1) << 32));
    }
  }

  std::vector<Item> items(int64_t *numClasses) {
    int64_t n = uniform(0, 40);
    int64_t horizon = uniform(1, 80);
    *numClasses = uniform(1, 6);
    double staticShare = std::uniform_real_distribution<double>(0, 1)(rng);
    std::vector<Item> out;
    for (int64_t i = 0; i < n; ++i) {
      Item it;
      it.start = uniform(0, horizon - 1);
      int64_t maxLen =
          chance(0.2) ? horizon : std::max<int64_t>(1, horizon / 6);
      it.end = std::min(horizon, it.start + uniform(0, maxLen));
      if (chance(staticShare))
        it.staticBytes = staticSize();
      else
        it.sizeClass = uniform(0, *numClasses - 1);
      out.push_back(it);
    }
    return out;
  }
};

const int64_t kAlignments[] = {1, 8, 64, 256, 4096};

Item dyn(int64_t start, int64_t end, int64_t sizeClass) {
  Item it;
  it.start = start;
  it.end = end;
  it.sizeClass = sizeClass;
  return it;
}

Item fixed(int64_t start, int64_t end, int64_t bytes) {
  Item it;
  it.start = start;
  it.end = end;
  it.staticBytes = bytes;
  return it;
}

//===----------------------------------------------------------------------===//
// Randomized properties
//===----------------------------------------------------------------------===//

class PoolPlanningRandom : public ::testing::TestWithParam<uint64_t> {};

TEST_P(PoolPlanningRandom, NoOverlapAndEverythingFits) {
  Generator gen(GetParam());
  const int kPlans = 1500, kEvaluations = 6;
  for (int iter = 0; iter < kPlans; ++iter) {
    int64_t numClasses;
    std::vector<Item> items = gen.items(&numClasses);
    int64_t alignment = kAlignments[gen.uniform(0, 4)];
    for (Scheme scheme : {Scheme::Lifetime, Scheme::SameSizeOnly}) {
      std::string ctx = "seed " + std::to_string(GetParam()) + " plan " +
                        std::to_string(iter) + ": " +
                        describe(items, alignment, scheme);
      Plan plan = planPool(items, alignment, scheme);
      checkStructure(items, plan, alignment, scheme, ctx);
      if (::testing::Test::HasFailure())
        return; // one reproducer is enough
      if (scheme == Scheme::Lifetime) {
        EXPECT_GE(int64_t(plan.groups.size()), maxDynamicClique(items))
            << "run-time items live at once need distinct groups\n"
            << ctx;
      }
      for (int e = 0; e < kEvaluations; ++e) {
        std::vector<u128> classBytes(numClasses);
        for (u128 &b : classBytes)
          b = e == 0 ? 0 : gen.runtimeSize(); // first: all zero
        checkLayout(items, plan, alignment, classBytes, ctx);
        Layout l = evaluate(items, plan, alignment, classBytes);
        EXPECT_GE(l.total, maxLive(items, l)) << ctx;
        if (::testing::Test::HasFailure())
          return;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PoolPlanningRandom,
                         ::testing::Values(1u, 2u, 3u, 42u, 1234u, 987654321u,
                                           0xdeadbeefu, 20261130u));

// Issue 6: the lifetime scheme never requests more than the IREE-style one
// at any shape. (Greedy one-item grouping once broke this; planDynamic now
// builds the same-size-only groups first and merges whole groups, and
// max(x, y) <= x + y.)
TEST(PoolPlanning, LifetimeNeverAboveSameSizeOnly) {
  Generator gen(7);
  for (int iter = 0; iter < 3000; ++iter) {
    int64_t numClasses;
    std::vector<Item> items = gen.items(&numClasses);
    int64_t alignment = 256;
    Plan ours = planPool(items, alignment, Scheme::Lifetime);
    Plan iree = planPool(items, alignment, Scheme::SameSizeOnly);
    for (int e = 0; e < 4; ++e) {
      std::vector<u128> classBytes(numClasses);
      for (u128 &b : classBytes)
        b = u128(gen.uniform(0, 1 << 20));
      u128 a = evaluate(items, ours, alignment, classBytes).total;
      u128 b = evaluate(items, iree, alignment, classBytes).total;
      ASSERT_LE(a, b) << "lifetime " << str(a) << " > same-size-only " << str(b)
                      << "\n"
                      << describe(items, alignment, Scheme::Lifetime);
    }
  }
}

//===----------------------------------------------------------------------===//
// Hand-made cases
//===----------------------------------------------------------------------===//

TEST(PoolPlanning, Empty) {
  Plan plan = planPool({}, 256, Scheme::Lifetime);
  EXPECT_EQ(plan.staticBytes, 0);
  EXPECT_TRUE(plan.groups.empty());
}

// The RFC's @lifetime_disjoint: different size values, disjoint lifetimes.
TEST(PoolPlanning, LifetimeDisjointShareOneSlab) {
  std::vector<Item> items = {dyn(0, 1, 0), dyn(2, 3, 1)};
  Plan plan = planPool(items, 256, Scheme::Lifetime);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.group[0], plan.group[1]);
  Layout l = evaluate(items, plan, 256, {100, 1000});
  EXPECT_EQ(l.offset[0], l.offset[1]);
  EXPECT_EQ(str(l.total), "1024"); // max(256, 1024)

  Plan iree = planPool(items, 256, Scheme::SameSizeOnly);
  ASSERT_EQ(iree.groups.size(), 2u);
  EXPECT_EQ(str(evaluate(items, iree, 256, {100, 1000}).total), "1280");
}

TEST(PoolPlanning, OverlappingPairIsSummed) {
  std::vector<Item> items = {dyn(0, 2, 0), dyn(1, 3, 1)};
  for (Scheme scheme : {Scheme::Lifetime, Scheme::SameSizeOnly}) {
    Plan plan = planPool(items, 256, scheme);
    ASSERT_EQ(plan.groups.size(), 2u);
    Layout l = evaluate(items, plan, 256, {100, 1000});
    EXPECT_EQ(str(l.total), "1280");
    EXPECT_NE(l.offset[0], l.offset[1]);
  }
}

// Lifetimes are inclusive: an item allocated at the position of another's
// last use overlaps it.
TEST(PoolPlanning, SharedEndpointOverlaps) {
  std::vector<Item> items = {dyn(0, 3, 0), dyn(3, 5, 0), fixed(0, 3, 10),
                             fixed(3, 5, 10)};
  Plan plan = planPool(items, 64, Scheme::Lifetime);
  EXPECT_NE(plan.group[0], plan.group[1]);
  EXPECT_NE(plan.staticOffset[2], plan.staticOffset[3]);
  EXPECT_EQ(plan.staticBytes, 128);
}

TEST(PoolPlanning, SameSizeSharesInBothSchemes) {
  std::vector<Item> items = {dyn(0, 1, 4), dyn(2, 3, 4), dyn(4, 9, 4)};
  for (Scheme scheme : {Scheme::Lifetime, Scheme::SameSizeOnly}) {
    Plan plan = planPool(items, 256, scheme);
    ASSERT_EQ(plan.groups.size(), 1u);
    EXPECT_EQ(plan.groups[0].size(), 3u);
  }
}

// Among free groups, the lifetime scheme prefers one of the item's own size
// class (its slab then needs no maximum).
TEST(PoolPlanning, PrefersGroupOfSameClass) {
  std::vector<Item> items = {dyn(0, 1, 0), dyn(0, 1, 1), dyn(2, 3, 1)};
  Plan plan = planPool(items, 256, Scheme::Lifetime);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.group[2], plan.group[1]);
}

// Best fit for static sizes (the lit test pool-allocations.mlir has the same
// case in IR): the 256-byte %v goes to the smaller of the two free gaps.
TEST(PoolPlanning, StaticBestFit) {
  // x 512 [1,5], y 256 [2,9], z 256 [3,6], w 256 [4,10], v 256 [7,8]
  std::vector<Item> items = {fixed(1, 5, 512), fixed(2, 9, 256),
                             fixed(3, 6, 256), fixed(4, 10, 256),
                             fixed(7, 8, 256)};
  Plan plan = planPool(items, 256, Scheme::Lifetime);
  EXPECT_EQ(plan.staticOffset, (std::vector<int64_t>{0, 512, 768, 1024, 768}));
  EXPECT_EQ(plan.staticBytes, 1280);
  EXPECT_TRUE(plan.groups.empty());
}

TEST(PoolPlanning, StaticSizesAreAligned) {
  std::vector<Item> items = {fixed(0, 4, 1), fixed(1, 4, 3), fixed(2, 4, 0),
                             fixed(3, 4, 257)};
  Plan plan = planPool(items, 256, Scheme::Lifetime);
  // 257 -> 512 first, then 1 and 3 -> 256 each; the empty item fits anywhere.
  EXPECT_EQ(plan.staticOffset[3], 0);
  EXPECT_EQ(plan.staticBytes, 1024);
  for (int64_t alignment : {1, 8, 4096}) {
    Plan p = planPool(items, alignment, Scheme::Lifetime);
    checkStructure(items, p, alignment, Scheme::Lifetime, "alignment");
    checkLayout(items, p, alignment, {}, "alignment");
  }
}

TEST(PoolPlanning, DisjointStaticItemsReuseOffsets) {
  std::vector<Item> items;
  for (int64_t i = 0; i < 10; ++i)
    items.push_back(fixed(2 * i, 2 * i + 1, 1000));
  Plan plan = planPool(items, 256, Scheme::Lifetime);
  EXPECT_EQ(plan.staticBytes, 1024);
  for (int64_t off : plan.staticOffset)
    EXPECT_EQ(off, 0);
}

// A chain of overlapping neighbours (like a sequence of layers: each
// result is live while the next is computed), three size classes. Same-size
// groups come first (one per class: every class's items are disjoint), and
// classes 0 and 2 cannot merge (items 2 and 3 touch), so three slabs of
// exactly their sizes: less than two slabs of the maximum would need.
TEST(PoolPlanning, ChainGroupsBySizeClassFirst) {
  std::vector<Item> items;
  for (int64_t i = 0; i < 12; ++i)
    items.push_back(dyn(2 * i, 2 * i + 2, i % 3));
  Plan plan = planPool(items, 256, Scheme::Lifetime);
  EXPECT_EQ(plan.groups.size(), 3u);
  Layout l = evaluate(items, plan, 256, {256, 512, 1024});
  EXPECT_EQ(str(l.total), "1792"); // 256 + 512 + 1024
  EXPECT_EQ(str(maxLive(items, l)), "1536");
  checkLayout(items, plan, 256, {256, 512, 1024}, "chain");
}

// The counterexample that used to put the lifetime scheme above the
// IREE-style one: a (class 0, early) paired with b (class 1) forced c
// (class 0, overlapping b) into a new slab: max(a, b) + c > a + b.
TEST(PoolPlanning, LifetimeNotAboveSameSizeOnlyExample) {
  std::vector<Item> items = {dyn(0, 1, 0), dyn(2, 4, 1), dyn(3, 4, 0)};
  std::vector<u128> sizes = {4096, 256};
  u128 ours =
      evaluate(items, planPool(items, 256, Scheme::Lifetime), 256, sizes).total;
  u128 iree =
      evaluate(items, planPool(items, 256, Scheme::SameSizeOnly), 256, sizes)
          .total;
  EXPECT_EQ(str(iree), "4352");
  EXPECT_EQ(str(ours), "4352");
}

//===----------------------------------------------------------------------===//
// Run-time placement (runtime/src/layout/PoolPlacement.cpp,
// onyxrt_place_temps)
//===----------------------------------------------------------------------===//

// For random interval sets and random concrete sizes: the run-time layout
// never overlaps two temporaries that are live at once, fits every one in
// the pool it requests, never requests more than the compile-time plan at
// the same sizes (which the runtime evaluates exactly as the compiler would
// emit it), and never less than the live-bytes bound.
TEST(PoolPlacement, RandomNeverOverlapsNeverAbovePlan) {
  Generator gen(11);
  int bestFitWins = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    int64_t numClasses;
    std::vector<Item> items = gen.items(&numClasses);
    int64_t alignment = 256;
    Plan plan = planPool(items, alignment, Scheme::Lifetime);
    for (int e = 0; e < 4; ++e) {
      std::vector<u128> classBytes(numClasses);
      for (u128 &b : classBytes)
        b = e == 0 ? 0 : u128(gen.uniform(0, 1 << 24));
      Layout l = evaluate(items, plan, alignment, classBytes);
      std::vector<onyx::rt::PlacedTemp> temps;
      for (size_t i = 0; i < items.size(); ++i)
        temps.push_back({items[i].start, items[i].end, int64_t(l.bytes[i]),
                         plan.group[i],
                         items[i].staticBytes ? plan.staticOffset[i] : 0});
      std::string ctx = "plan " + std::to_string(iter) + ": " +
                        describe(items, alignment, Scheme::Lifetime);
      onyx::rt::Placement byPlan =
          onyx::rt::placeByPlan(temps, plan.staticBytes);
      ASSERT_EQ(u128(byPlan.totalBytes), l.total) << ctx;
      onyx::rt::Placement p = onyx::rt::placeTemps(temps, plan.staticBytes);
      ASSERT_EQ(p.offsets.size(), temps.size()) << ctx;
      ASSERT_LE(u128(p.totalBytes), l.total) << ctx;
      ASSERT_GE(u128(p.totalBytes), maxLive(items, l)) << ctx;
      for (size_t i = 0; i < temps.size(); ++i) {
        ASSERT_GE(p.offsets[i], 0) << ctx;
        ASSERT_LE(p.offsets[i] + temps[i].bytes, p.totalBytes) << ctx;
        ASSERT_EQ(p.offsets[i] % alignment, 0) << ctx;
        for (size_t j = i + 1; j < temps.size(); ++j) {
          if (!overlaps(items[i], items[j]) || temps[i].bytes == 0 ||
              temps[j].bytes == 0)
            continue;
          bool disjoint = p.offsets[i] + temps[i].bytes <= p.offsets[j] ||
                          p.offsets[j] + temps[j].bytes <= p.offsets[i];
          ASSERT_TRUE(disjoint) << "#" << i << " and #" << j << "\n" << ctx;
        }
      }
      bestFitWins += p.bestFit && p.totalBytes < byPlan.totalBytes;
    }
  }
  // Best fit must actually matter on random sets, or the run-time half
  // would be dead weight.
  EXPECT_GT(bestFitWins, 100);
}

// The RFC's transformer case in miniature: which of two run-time sizes is
// larger depends on the shape, so a compile-time grouping that pairs the
// scores with one FFN buffer wastes memory at some shapes. Best fit at the
// actual sizes reaches the live bound.
TEST(PoolPlacement, ShapeDependentWinner) {
  // #0 scores (S*S), live alone at [2, 3]; #1..#2 FFN (S*k), live together
  // at [4, 5]; #3 live across everything, small.
  std::vector<onyx::rt::PlacedTemp> temps = {{2, 3, 4096, 0, 0},
                                             {4, 5, 1024, 0, 0},
                                             {4, 5, 1024, 1, 0},
                                             {0, 6, 256, 2, 0}};
  onyx::rt::Placement plan = onyx::rt::placeByPlan(temps, 0);
  EXPECT_EQ(plan.totalBytes, 4096 + 1024 + 256);
  onyx::rt::Placement p = onyx::rt::placeTemps(temps, 0);
  EXPECT_TRUE(p.bestFit);
  EXPECT_EQ(p.totalBytes, 4096 + 256);
}

//===----------------------------------------------------------------------===//
// The shared best-fit search (onyx::layout::bestFitOffset)
//===----------------------------------------------------------------------===//

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

TEST(BestFitOffset, EmptyAndAbove) {
  Ranges none;
  EXPECT_EQ(onyx::layout::bestFitOffset(none, 100), 0);
  // No gap holds 300 bytes: above the highest range (not the last one).
  Ranges busy = {{400, 500}, {0, 100}, {200, 700}};
  EXPECT_EQ(onyx::layout::bestFitOffset(busy, 300), 700);
  // Sorted by the call.
  EXPECT_TRUE(std::is_sorted(busy.begin(), busy.end()));
}

TEST(BestFitOffset, SmallestGapFirstOnTie) {
  // Gaps: [0, 100) 100 bytes, [200, 250) 50, [300, 350) 50, above 400.
  Ranges busy = {{100, 200}, {250, 300}, {350, 400}};
  EXPECT_EQ(onyx::layout::bestFitOffset(busy, 50), 200);
  EXPECT_EQ(onyx::layout::bestFitOffset(busy, 60), 0);
  EXPECT_EQ(onyx::layout::bestFitOffset(busy, 101), 400);
  // Overlapping ranges (lifetimes overlap, memory need not be disjoint for
  // the caller's items): the gap starts after the farthest end so far.
  Ranges nested = {{0, 300}, {100, 200}, {350, 400}};
  EXPECT_EQ(onyx::layout::bestFitOffset(nested, 50), 300);
  EXPECT_EQ(onyx::layout::bestFitOffset(nested, 51), 400);
}

// For random busy sets: the offset found never overlaps a busy range, and
// below the top of the ranges it starts a gap that holds the block.
TEST(BestFitOffset, RandomFitsAndIsBest) {
  std::mt19937_64 rng(5);
  for (int iter = 0; iter < 2000; ++iter) {
    Ranges busy;
    int n = int(rng() % 8);
    for (int i = 0; i < n; ++i) {
      int64_t lo = int64_t(rng() % 1000), len = int64_t(rng() % 200);
      busy.push_back({lo, lo + len});
    }
    int64_t bytes = int64_t(rng() % 300);
    Ranges copy = busy;
    int64_t at = onyx::layout::bestFitOffset(copy, bytes);
    ASSERT_GE(at, 0);
    for (auto [lo, hi] : busy)
      if (hi > lo && bytes > 0)
        ASSERT_TRUE(at + bytes <= lo || hi <= at)
            << "iter " << iter << ": [" << at << ", " << at + bytes
            << ") overlaps [" << lo << ", " << hi << ")";
    // The gap it chose: from `at` to the next range start (or unbounded).
    int64_t chosenGap = INT64_MAX;
    for (auto [lo, hi] : busy)
      if (lo >= at && hi > lo)
        chosenGap = std::min(chosenGap, lo - at);
    int64_t top = 0;
    for (auto [lo, hi] : busy)
      top = std::max(top, hi);
    if (at < top)
      ASSERT_GE(chosenGap, bytes) << "iter " << iter;
  }
}

} // namespace
