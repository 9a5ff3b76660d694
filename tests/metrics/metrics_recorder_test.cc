// MetricsRecorder's compact rows: what job(i) and Jobs() build back (interned placement
// and VC texts, rows and samples over several chunks), and Summarize's percentiles
// read from one reordered copy against Percentile() on each.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "schedkit/metrics.h"

namespace schedkit {
namespace {

Placement OnNode(int node, uint64_t mask, int cpus = 0, int milli = kMilliPerGpu) {
  Placement p;
  NodeShare s;
  s.node = node;
  s.gpu_mask = mask;
  s.cpus = cpus;
  s.gpu_milli = milli;
  p.shares.push_back(s);
  return p;
}

Placement OnTwoNodes(int first, int second, uint64_t mask) {
  Placement p = OnNode(first, mask);
  p.shares.push_back(OnNode(second, mask).shares[0]);
  return p;
}

// A job restarted on several nodes again keeps one copy, replaced each time (the row owns
// it), and shows its last placement whatever came between; a fractional share (interned,
// shared by rows) is never overwritten by another row's restart.
TEST(MetricsRecorder, RestartsShowTheLastPlacement) {
  MetricsRecorder recorder(nullptr, 1.0);
  const JobSpec a = JobBuilder(0).Gpus(4).Duration(10).Build();
  const JobSpec b = JobBuilder(1).Gpus(1).Duration(10).Build();
  recorder.AddJob(a);
  recorder.AddJob(b);
  const Placement fraction = OnNode(2, 1, 0, 500);
  recorder.OnJobStart(b, 1, fraction);
  recorder.OnJobStart(a, 1, OnTwoNodes(0, 1, 0b11));
  EXPECT_EQ(recorder.job(0).placement, "n0:0-1;n1:0-1");
  recorder.OnJobStart(a, 2, OnTwoNodes(3, 5, 0b1100));
  EXPECT_EQ(recorder.job(0).placement, "n3:2-3;n5:2-3");
  recorder.OnJobStart(a, 3, fraction);
  EXPECT_EQ(recorder.job(0).placement, fraction.ToString());
  recorder.OnJobStart(a, 4, OnTwoNodes(6, 7, 0b11));
  EXPECT_EQ(recorder.job(0).placement, "n6:0-1;n7:0-1");
  recorder.OnJobStart(a, 5, OnNode(4, 0xF));
  EXPECT_EQ(recorder.job(0).placement, "n4:0-3");
  recorder.OnJobStart(a, 6, OnTwoNodes(1, 2, 0b11));
  EXPECT_EQ(recorder.job(0).placement, "n1:0-1;n2:0-1");
  EXPECT_EQ(recorder.job(1).placement, fraction.ToString());
}

// A job that moves between one node and several at every restart (LAS swapping 8-GPU jobs
// on a busy cluster) keeps one copy for all its multi-node starts: the recorder's memory
// does not grow with restarts.
TEST(MetricsRecorder, RestartsBetweenOneNodeAndSeveralKeepOneCopy) {
  MetricsRecorder recorder(nullptr, 1.0);
  const JobSpec a = JobBuilder(0).Gpus(8).Duration(10).Build();
  recorder.AddJob(a);
  const size_t before = recorder.num_placements();
  for (int i = 0; i < 1000; ++i) {
    recorder.OnJobStart(a, 2 * i, OnTwoNodes(i % 7, 7 + i % 5, 0xF));
    recorder.OnJobStart(a, 2 * i + 1, OnNode(i % 3, 0xFF));
  }
  EXPECT_EQ(recorder.num_placements(), before + 1);
  EXPECT_EQ(recorder.job(0).placement, "n0:0-7");  // 999 % 3.
  recorder.OnJobStart(a, 2000, OnTwoNodes(2, 9, 0b11));
  EXPECT_EQ(recorder.job(0).placement, "n2:0-1;n9:0-1");
  EXPECT_EQ(recorder.num_placements(), before + 1);
}

// 9,000 jobs (five chunks of 2,048 rows): each row as the signals left it, placement text and
// VC included, whether the placement was seen before or not.
TEST(MetricsRecorder, RowsBuildBackWhatTheSignalsSaid) {
  MetricsRecorder recorder(nullptr, 2.0);
  const std::vector<std::string> vcs = {"", "vc-a", "vc,b"};
  std::vector<RecordedJob> expected;
  for (int i = 0; i < 9000; ++i) {
    const JobSpec job = JobBuilder(i).Submit(i).Gpus(1 + i % 4).Duration(10 + i).Vc(vcs[i % 3]).Build();
    recorder.AddJob(job);
    RecordedJob r;
    r.id = i;
    r.gpus = job.gpus;
    r.submit_s = i;
    r.solo_s = 2.0 * (10 + i);
    r.vc = vcs[i % 3];
    if (i % 5 != 0) {  // Every fifth job never starts: no placement.
      // Placements recur (i % 37) and some differ only in CPUs, which the text leaves out.
      Placement first = OnNode(i % 37, uint64_t{1} << (i % 8), i % 2);
      recorder.OnJobStart(job, i + 1, first);
      r.first_start_s = i + 1;
      r.placement = first.ToString();
      if (i % 3 == 0) {
        recorder.OnJobPreempt(job, i + 2);
        Placement second = OnNode(i % 5, 1, 0, 250);  // A fractional share...
        if (i % 7 == 0) {  // ...or two nodes.
          second = OnNode(i % 5, 0b11);
          second.shares.push_back(OnNode(40 + i % 3, 0xF0).shares[0]);
        }
        recorder.OnJobStart(job, i + 3, second);
        r.placement = second.ToString();
        r.preemptions = 1;
      }
      if (i % 4 != 0) {
        recorder.OnJobFinish(job, i + 10, i + 1, 7.5, r.preemptions, {});
        r.end_s = i + 10;
        r.executed_s = 7.5;
        r.outcome = RecordedJob::Outcome::kFinished;
      }
    } else if (i % 10 == 0) {
      recorder.OnJobReject(job, i);
      r.outcome = RecordedJob::Outcome::kRejected;
    }
    expected.push_back(r);
  }
  ASSERT_EQ(recorder.num_jobs(), expected.size());
  const std::vector<RecordedJob> all = recorder.Jobs();
  ASSERT_EQ(all.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    for (const RecordedJob& got : {recorder.job(i), all[i]}) {
      const RecordedJob& want = expected[i];
      EXPECT_EQ(got.id, want.id);
      EXPECT_EQ(got.gpus, want.gpus);
      EXPECT_EQ(got.submit_s, want.submit_s);
      EXPECT_EQ(got.first_start_s, want.first_start_s) << "job " << i;
      EXPECT_EQ(got.end_s, want.end_s) << "job " << i;
      EXPECT_EQ(got.executed_s, want.executed_s);
      EXPECT_EQ(got.solo_s, want.solo_s);
      EXPECT_EQ(got.preemptions, want.preemptions);
      EXPECT_EQ(got.placement, want.placement) << "job " << i;
      EXPECT_EQ(got.vc, want.vc);
      EXPECT_EQ(got.outcome, want.outcome) << "job " << i;
    }
  }
  EXPECT_EQ(recorder.job(2).placement, "n2:2");
  EXPECT_EQ(recorder.job(6).placement, "n1:0@250");  // Moved: its second placement.
  EXPECT_EQ(recorder.job(21).placement, "n1:0-1;n40:4-7");
  EXPECT_EQ(recorder.job(5).placement, "");  // Never started.
}

// The recorder's samples are `expected`, bit for bit.
void ExpectSamples(const MetricsRecorder& recorder, const std::vector<ClusterSample>& expected) {
  ASSERT_EQ(recorder.num_samples(), expected.size());
  size_t i = 0;
  recorder.ForEachSample([&](const ClusterSample& s) {
    ASSERT_LT(i, expected.size());
    EXPECT_EQ(std::bit_cast<uint64_t>(s.time_s), std::bit_cast<uint64_t>(expected[i].time_s))
        << "sample " << i;
    EXPECT_EQ(s.pending, expected[i].pending) << "sample " << i;
    EXPECT_EQ(s.running, expected[i].running) << "sample " << i;
    EXPECT_EQ(s.busy_gpus, expected[i].busy_gpus) << "sample " << i;
    ++i;
  });
  EXPECT_EQ(i, expected.size());
}

// A sample replaces the last one at the same time, across a chunk's end too.
TEST(MetricsRecorder, SamplesKeepTheLastOfEachTime) {
  MetricsRecorder recorder(nullptr);
  std::vector<ClusterSample> expected;
  for (int i = 0; i < 10000; ++i) {
    const double t = i / 2;  // Two samples per time: the second stays.
    recorder.OnClusterState(t, i, i + 1, i + 2);
    if (!expected.empty() && expected.back().time_s == t) expected.pop_back();
    expected.push_back({t, i, i + 1, i + 2});
  }
  ExpectSamples(recorder, expected);
}

// Samples come back bit for bit whatever their times (fractions, round seconds, repeats,
// jumps back, negative, huge, signed zeros, infinities) and counts (negative, extreme),
// across the log's blocks.
TEST(MetricsRecorder, SamplesComeBackExactly) {
  std::mt19937_64 rng(7);
  MetricsRecorder recorder(nullptr);
  std::vector<ClusterSample> expected;
  double t = 0;
  const double odd_times[] = {-0.0, 0.0, -1e300, 1e300, INFINITY, -INFINITY, 5e-324, -3.5};
  const int odd_counts[] = {0, -1, 1, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()};
  for (int i = 0; i < 200000; ++i) {
    switch (rng() % 8) {
      case 0: t = odd_times[rng() % 8]; break;
      case 1: t = std::floor(t) + static_cast<double>(rng() % 100); break;  // Round seconds.
      case 2: break;                                                        // The same time.
      default: t += std::uniform_real_distribution<double>(0, 1000)(rng);
    }
    auto count = [&] {
      return rng() % 10 == 0 ? odd_counts[rng() % 5] : static_cast<int>(rng() % 2000) - 10;
    };
    const ClusterSample s{t, count(), count(), count()};
    recorder.OnClusterState(s.time_s, s.pending, s.running, s.busy_gpus);
    if (!expected.empty() && expected.back().time_s == s.time_s) expected.pop_back();
    expected.push_back(s);
  }
  ExpectSamples(recorder, expected);
}

// Summarize reads p50, p95 and p99 of the JCTs from one copy, each nth_element above the
// last: the values Percentile() gives on the whole, under both rules, ties included.
TEST(MetricsRecorder, SummaryPercentilesAreThoseOfPercentile) {
  for (PercentileRule rule : {PercentileRule::kNearestRank, PercentileRule::kMuriIndex}) {
    MetricsRecorder recorder(nullptr);
    std::mt19937_64 rng(5);
    std::vector<double> jcts, queues, slowdowns;
    for (int i = 0; i < 3001; ++i) {
      const JobSpec job = JobBuilder(i).Submit(i).Duration(1 + i % 13).Build();
      recorder.AddJob(job);
      const double start = i + static_cast<double>(rng() % 50);  // Ties among queues.
      const double end = start + static_cast<double>(rng() % 1000) / 4;
      recorder.OnJobStart(job, start, OnNode(0, 1));
      recorder.OnJobFinish(job, end, start, end - start, 0, OnNode(0, 1));
      jcts.push_back(end - i);
      queues.push_back(start - i);
      slowdowns.push_back((end - i) / (1 + i % 13));
    }
    ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 8, 0, 0);
    const Summary s = Summarize(recorder, cluster, SimulationStats{}, rule, 0);
    EXPECT_EQ(s.jobs, 3001);
    EXPECT_EQ(s.p50_jct_s, Percentile(jcts, 0.50, rule));
    EXPECT_EQ(s.p95_jct_s, Percentile(jcts, 0.95, rule));
    EXPECT_EQ(s.p99_jct_s, Percentile(jcts, 0.99, rule));
    EXPECT_EQ(s.p999_queue_s, Percentile(queues, 0.999, rule));
    EXPECT_EQ(s.p99_slowdown, Percentile(slowdowns, 0.99, rule));
    std::sort(jcts.begin(), jcts.end());
    EXPECT_EQ(s.p95_jct_s, jcts[2850]);  // 0.95 x 3,001 = 2,850.95: index 2,850 by both rules.
  }
}

}  // namespace
}  // namespace schedkit
