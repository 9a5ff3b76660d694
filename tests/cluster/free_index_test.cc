// ClusterState's index of nodes by free GPUs, and the placement modules that read it
// (best-fit, yarn, gpu-count): on random states they choose exactly what a scan of every
// node chose before the index (the reference scans below), ties included.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "placement/placement_util.h"
#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

// 150 nodes (three 64-bit words of the index) of 8 or 4 GPUs on 3 switches, with CPUs
// and memory so that GPUs are not the only reason a node cannot hold a job.
ClusterSpec MixedCluster() {
  ClusterSpec spec;
  for (int n = 0; n < 150; ++n) {
    spec.nodes.push_back(NodeSpec{n / 50, n % 3 == 0 ? 4 : 8, 32, 200});
  }
  return spec;
}

// The scans the modules made before the index.
// GPUs taken from every node with some free, emptiest first (ties by id).
Placement ReferenceEmptiestFirst(const JobSpec& job, const ClusterState& free) {
  std::vector<int> nodes;
  for (int c = kMaxGpusPerNode; c > 0; --c) {
    for (int n = 0; n < free.num_nodes(); ++n) {
      if (free.free_gpus(n) == c) nodes.push_back(n);
    }
  }
  return TakeInOrder(free, job, nodes);
}

Placement ReferenceBestFit(const JobSpec& job, const ClusterState& free) {
  int best = -1;
  for (int node = 0; node < free.num_nodes(); ++node) {
    if (!FitsOn(free, job, node, job.gpus)) continue;
    if (best < 0 || free.free_gpus(node) < free.free_gpus(best)) best = node;
  }
  if (best >= 0) return Placement{{ShareOn(free, job, best, job.gpus)}};
  return ReferenceEmptiestFirst(job, free);
}

Placement ReferenceYarnSingleNode(const JobSpec& job, const ClusterState& free) {
  for (int node = 0; node < free.num_nodes(); ++node) {
    if (FitsOn(free, job, node, job.gpus)) return Placement{{ShareOn(free, job, node, job.gpus)}};
  }
  return Placement();
}

void ExpectIndexMatchesCounts(const ClusterState& s) {
  for (int c = 0; c <= s.max_node_gpus(); ++c) {
    int expect = -1;
    for (int from = s.num_nodes() - 1; from >= -1; --from) {
      // expect: the lowest node >= from+1 with exactly c free.
      ASSERT_EQ(s.FirstNodeWithFree(c, from + 1), expect) << "count " << c << " from " << from + 1;
      if (from >= 0 && s.free_gpus(from) == c) expect = from;
    }
  }
  for (int c = 0; c <= s.max_node_gpus() + 1; ++c) {
    int expect = -1;
    for (int from = s.num_nodes() - 1; from >= -1; --from) {
      ASSERT_EQ(s.FirstNodeWithAtLeast(c, from + 1), expect) << "at least " << c;
      if (from >= 0 && s.free_gpus(from) >= c) expect = from;
    }
  }
  EXPECT_EQ(s.CheckShares(), "");
}

TEST(FreeIndex, FollowsAllocationsReleasesHoldsAndFractionalShares) {
  const ClusterSpec spec = MixedCluster();
  ClusterState state(&spec);
  EXPECT_EQ(state.max_node_gpus(), 8);
  ExpectIndexMatchesCounts(state);
  std::mt19937 rng(11);
  std::vector<Placement> booked;
  for (int step = 0; step < 400; ++step) {
    const int node = static_cast<int>(rng() % spec.nodes.size());
    const int r = static_cast<int>(rng() % 10);
    if (r < 5 && state.free_gpus(node) > 0) {
      NodeShare share{.node = node, .cpus = 1, .gpu_mask = LowestBits(state.free_gpu_mask(node), 1 + rng() % state.free_gpus(node)), .mem_gb = 1};
      if (r == 0) {  // A fractional share of one free GPU.
        share.gpu_mask = LowestBits(state.free_gpu_mask(node), 1);
        share.gpu_milli = 300;
      }
      const Placement p{{share}};
      if (!state.CanAllocate(p)) continue;  // Out of CPUs there.
      state.Allocate(p);
      booked.push_back(p);
    } else if (r < 8 && !booked.empty()) {
      const size_t i = rng() % booked.size();
      state.Release(booked[i]);
      booked.erase(booked.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      state.SetHeld(node, !state.held(node));
    }
    if (step % 40 == 0) ExpectIndexMatchesCounts(state);
  }
  ExpectIndexMatchesCounts(state);
}

// TryAllocate books exactly what CanAllocate-then-Allocate books, and a refusal changes
// nothing: two states side by side, one through each, on random placements of which
// many overlap booked GPUs or ask for more CPUs than are left.
TEST(FreeIndex, TryAllocateBooksWhatCanAllocateThenAllocateBooks) {
  const ClusterSpec spec = MixedCluster();
  ClusterState checked(&spec), tried(&spec);
  std::mt19937 rng(23);
  std::vector<Placement> booked;
  int refused = 0;
  for (int step = 0; step < 600; ++step) {
    const int node = static_cast<int>(rng() % spec.nodes.size());
    if (rng() % 3 == 0 && !booked.empty()) {
      const size_t i = rng() % booked.size();
      checked.Release(booked[i]);
      tried.Release(booked[i]);
      booked.erase(booked.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    // Any of the node's GPUs, free or not.
    const uint64_t all = (uint64_t{1} << spec.nodes[node].gpus) - 1;
    const uint64_t mask = LowestBits(all, 1 + rng() % spec.nodes[node].gpus) << (rng() % 2);
    const Placement p{{NodeShare{.node = node, .cpus = static_cast<int>(rng() % 12),
                                 .gpu_mask = mask & all, .mem_gb = 1}}};
    if (p.shares[0].gpu_mask == 0) continue;
    const bool can = checked.CanAllocate(p);
    if (can) checked.Allocate(p);
    ASSERT_EQ(tried.TryAllocate(p), can) << p.ToString();
    if (can) booked.push_back(p);
    refused += !can;
    for (int n = 0; n < tried.num_nodes(); ++n) {
      ASSERT_EQ(tried.free_gpu_mask(n), checked.free_gpu_mask(n)) << "node " << n;
      ASSERT_EQ(tried.free_cpus(n), checked.free_cpus(n)) << "node " << n;
      ASSERT_EQ(tried.free_mem_gb(n), checked.free_mem_gb(n)) << "node " << n;
    }
    ASSERT_EQ(tried.total_free_gpus(), checked.total_free_gpus());
  }
  EXPECT_GT(refused, 100);  // The refusals were exercised, not only the bookings.
  EXPECT_GT(booked.size(), 20u);
  ExpectIndexMatchesCounts(tried);
}

// Best-fit, yarn's single-node rule and gpu-count's emptiest-first order decide as the
// scans did (gpu-count and best-fit's fallback stop reading the index once placed), on 300 random states of a cluster of mixed node sizes.
TEST(FreeIndex, PlacementsChooseAsTheFullScanDid) {
  const ClusterSpec spec = MixedCluster();
  const auto best_fit = testing::MakeBuiltinPlacement("best-fit");
  const auto yarn = testing::MakeBuiltinPlacement("yarn");
  const auto gpu_count = testing::MakeBuiltinPlacement("gpu-count");
  std::mt19937 rng(5);
  int placed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    ClusterState state(&spec);
    for (int n = 0; n < state.num_nodes(); ++n) {
      // Odd trials: most nodes (every node, one trial in four) full or one GPU short, so
      // that jobs need the nodes with the fewest free GPUs too.
      const int gpus = spec.nodes[n].gpus;
      const bool tight = trial % 2 == 1 && (trial % 4 == 1 || rng() % 4 != 0);
      const int busy = tight ? gpus - static_cast<int>(rng() % 2)
                             : static_cast<int>(rng() % (gpus + 1));
      const int cpus = static_cast<int>(rng() % 33);
      if (busy == 0 && cpus == 0) continue;
      // `busy` GPUs and `cpus` CPUs booked (a share of no GPU books CPUs only).
      const NodeShare share{.node = n, .cpus = cpus, .gpu_mask = busy == 0 ? 0 : LowestBits(state.free_gpu_mask(n), busy)};
      state.Allocate(Placement{{share}});
    }
    for (int gpus : {1, 2, 3, 4, 6, 8, 12, 16}) {
      const JobSpec job = JobBuilder(1).Gpus(gpus).Build();
      const Placement expect = ReferenceBestFit(job, state);
      EXPECT_EQ(best_fit->Place(job, state).ToString(), expect.ToString())
          << "trial " << trial << " gpus " << gpus;
      // gpu-count reads the index only until the job is placed (TakeEmptiestFirst).
      EXPECT_EQ(gpu_count->Place(job, state).ToString(),
                (state.total_free_gpus() < gpus ? Placement() : ReferenceEmptiestFirst(job, state))
                    .ToString())
          << "trial " << trial << " gpus " << gpus;
      if (gpus <= 8) {
        EXPECT_EQ(yarn->Place(job, state).ToString(), ReferenceYarnSingleNode(job, state).ToString())
            << "trial " << trial << " gpus " << gpus;
      }
      placed += !expect.empty();
    }
  }
  EXPECT_GT(placed, 1000);  // The states were not all too full to place anything.
}

// CountGpus is std::popcount written without a call: the same count for every mask.
TEST(FreeIndex, CountGpusCountsEveryMaskAsPopcount) {
  static_assert(CountGpus(0) == 0 && CountGpus(~uint64_t{0}) == 64 && CountGpus(0xF0) == 4);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t mask = rng() & rng();  // Sparse and dense masks alike.
    ASSERT_EQ(CountGpus(mask), std::popcount(mask)) << std::hex << mask;
  }
  for (int bit = 0; bit < 64; ++bit) EXPECT_EQ(CountGpus(uint64_t{1} << bit), 1) << bit;
}

}  // namespace
}  // namespace schedkit
