// Cluster membership in the simulator (schedkit/membership.h): nodes that join, drain,
// fail and recover, each kind on a hand-computed scenario; the file format and its
// errors; every registered policy through failures and drains.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "schedkit/trace.h"
#include "schedkit/membership.h"
#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

// Two nodes of 2 GPUs: n0 and n1.
const ClusterSpec kTwoNodes = ClusterSpec::Uniform(1, 2, 2, 0, 0);

MembershipEvent Change(Time t, int node, MembershipChange c) { return {t, node, c}; }

TEST(Membership, ADrainedNodeFinishesItsJobsAndTakesNoNewOnes) {
  // FIFO. J1 (2 GPUs, 100 s) starts at 0 on n0, which drains at 10. J2 (2 GPUs, 50 s)
  // at 20 takes n1 (20-70). J3 (2 GPUs, 10 s) at 30 cannot use n0, though it would be
  // free at 100 anyway: it waits for n1, 70-80. J1 is untouched: JCT 100.
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(20).Duration(50).Build(),
                        JobBuilder(3).Gpus(2).Submit(30).Duration(10).Build()},
                       kTwoNodes, Request("fifo"), 0, {Change(10, 0, MembershipChange::kDrain)});
  EXPECT_EQ(r.jobs.at(1).placement, "n0:0-1");
  EXPECT_DOUBLE_EQ(r.Jct(1), 100);
  EXPECT_EQ(r.jobs.at(1).preemptions, 0);
  EXPECT_DOUBLE_EQ(r.Start(2), 20);
  EXPECT_DOUBLE_EQ(r.Start(3), 70);
  EXPECT_EQ(r.jobs.at(3).placement, "n1:0-1");
}

TEST(Membership, AFailedNodeStopsItsJobsWhichRestartElsewhereAndPayTheOverheadAgain) {
  // FIFO, restart overhead 5 s. J1 (2 GPUs, 100 s of work) starts at 0 on n0: 5 s of
  // overhead, then work. n0 fails at 40: J1 has done 35 s, is stopped and restarts at
  // once on n1: 5 s of overhead + 65 s of work, done at 110. J2 (1 GPU, 10 s) at 50
  // finds n0 down and n1 full; n0 recovers at 60 and J2 runs there, 60-75.
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(1).Submit(50).Duration(10).Build()},
                       kTwoNodes, Request("fifo"), 5,
                       {Change(40, 0, MembershipChange::kFail),
                        Change(60, 0, MembershipChange::kRecover)});
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);
  EXPECT_EQ(r.jobs.at(1).placement, "n1:0-1");
  EXPECT_DOUBLE_EQ(r.Jct(1), 110);
  EXPECT_DOUBLE_EQ(r.Start(2), 60);
  EXPECT_DOUBLE_EQ(r.Jct(2), 25);
  EXPECT_EQ(r.jobs.at(2).placement, "n0:0");
  EXPECT_EQ(r.summary.preemptions, 1);
}

TEST(Membership, ANodeThatJoinsLaterIsAbsentUntilThen) {
  // n1 joins at 50. J1 (2 GPUs, 100 s) at 0 takes n0; J2 (2 GPUs, 10 s) at 10 waits for
  // n1: 50-60 (it would start at 10 on a full cluster).
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(10).Duration(10).Build()},
                       kTwoNodes, Request("fifo"), 0, {Change(50, 1, MembershipChange::kJoin)});
  EXPECT_DOUBLE_EQ(r.Start(2), 50);
  EXPECT_EQ(r.jobs.at(2).placement, "n1:0-1");
}

TEST(Membership, ADrainedNodeThatRecoversTakesJobsAgain) {
  // n0 drains at 0 and recovers at 30: J1 (4 GPUs, 10 s) at 0 needs both nodes and
  // waits until 30.
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(10).Build()}, kTwoNodes,
                       Request("fifo"), 0,
                       {Change(0, 0, MembershipChange::kDrain),
                        Change(30, 0, MembershipChange::kRecover)});
  EXPECT_DOUBLE_EQ(r.Start(1), 30);
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Membership, FileLoadsInOrder) {
  const std::string path =
      WriteFile("members.csv", "time_s,node,event\n0,1,join\n10.5,0,drain\n20,0,fail\n30,0,recover\n");
  auto events = LoadMembership(path, kTwoNodes);
  ASSERT_TRUE(events.ok()) << events.status().message();
  ASSERT_EQ(events->size(), 4u);
  EXPECT_DOUBLE_EQ((*events)[1].time_s, 10.5);
  EXPECT_EQ((*events)[1].node, 0);
  EXPECT_EQ((*events)[2].change, MembershipChange::kFail);
  for (MembershipChange c : {MembershipChange::kJoin, MembershipChange::kDrain,
                             MembershipChange::kFail, MembershipChange::kRecover}) {
    EXPECT_EQ(*ParseMembershipChange(MembershipChangeName(c)), c);
  }
}

TEST(Membership, BadFilesNameTheFileLineAndField) {
  const std::string head = "time_s,node,event\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0,0,explode\n", "m.csv:2: field 'event': 'explode' is not one of join, drain, fail, recover"},
      {"0,2,drain\n", "m.csv:2: field 'node': 2 is not a node of the cluster (0..1)"},
      {"10,0,drain\n5,1,drain\n", "m.csv:3: field 'time_s': times must not decrease"},
      {"0,0,recover\n", "m.csv:2: field 'event': 'recover' on node 0, which is up"},
      // Node 1's first change is not a join, so it starts up, not absent.
      {"5,1,fail\n10,1,join\n", "m.csv:3: field 'event': 'join' on node 1, which is down"},
      {"0,0,drain\n1,0,drain\n", "m.csv:3: field 'event': 'drain' on node 0, which is drained"},
      {"-1,0,drain\n", "m.csv:2: field 'time_s': '-1' must be >= 0"},
  };
  for (const auto& [body, expected] : cases) {
    const std::string path = WriteFile("m.csv", head + body);
    auto events = LoadMembership(path, kTwoNodes);
    ASSERT_FALSE(events.ok()) << body;
    const std::string& msg = events.status().message();
    EXPECT_EQ(msg.substr(msg.size() - std::min(msg.size(), expected.size())), expected) << body;
  }
  EXPECT_FALSE(LoadMembership(WriteFile("m.csv", "time,node,event\n"), kTwoNodes).ok());
}

TEST(Membership, RunSimulationRefusesIllegalChanges) {
  Trace trace;
  trace.jobs = {JobBuilder(1).Gpus(1).Duration(10).Build()};
  SimulatorOptions options;
  options.membership = {Change(0, 5, MembershipChange::kDrain)};
  auto run = RunSimulation(trace, kTwoNodes, Request("fifo"), options);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "membership: change 1: node: 5 is not a node of the cluster (0..1)");
}

// Every policy through a failure, a drain and recoveries: all jobs finish, none starts on
// a node that is held back (the applier would refuse the decision and fail the run).
TEST(Membership, EveryPolicyRunsThroughFailuresAndDrains) {
  GeneratorConfig gen;
  gen.num_jobs = 200;
  gen.jobs_per_hour = 10;
  gen.seed = 11;
  auto trace = GenerateTrace(gen);
  ASSERT_TRUE(trace.ok());
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 8, 0, 0);
  const Time span = trace->jobs.back().submit_s;
  const std::vector<MembershipEvent> changes = {
      Change(span * 0.1, 3, MembershipChange::kJoin),
      Change(span * 0.2, 0, MembershipChange::kFail),
      Change(span * 0.3, 1, MembershipChange::kDrain),
      Change(span * 0.5, 0, MembershipChange::kRecover),
      Change(span * 0.6, 1, MembershipChange::kFail),
      Change(span * 0.7, 1, MembershipChange::kRecover)};
  for (const auto& policy : BuiltinRegistries().policies.entries()) {
    if (TooSlowForEveryPolicyLoops(policy.name)) continue;
    SimulatorOptions options;
    options.overheads = RestartOverheads(10);
    options.membership = changes;
    auto out = RunSimulation(*trace, cluster, Request(policy.name), options);
    ASSERT_TRUE(out.ok()) << policy.name << ": " << out.status().message();
    EXPECT_EQ(out->stats.unfinished, 0) << policy.name;
    ExpectJobInvariants(*trace, *out->recorder);
  }
}

}  // namespace
}  // namespace schedkit::testing
