// Co-location on real processes: the real `schedkit serve` (local backend), real gRPC, the
// real SQLite store. Each job reports from its own environment where and how it runs
// (CUDA_VISIBLE_DEVICES, SCHEDKIT_GROUP, SCHEDKIT_GROUP_SIZE, SCHEDKIT_RATE, SCHEDKIT_GUEST)
// and when each of its runs begins and ends, so overlaps are observed, not inferred.
#include <signal.h>

#include <algorithm>
#include <map>
#include <set>

#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

// One run of a job, as the job printed it.
struct RunSpan {
  JobId job = 0;
  double begin = 0, end = -1;  // Unix seconds; end < 0 while it runs.
  std::string gpus, group, group_size, rate, guest;
};

// Prints "start TIME GPUS GROUP SIZE RATE GUEST", sleeps `seconds`, prints "end TIME";
// a SIGTERM (preemption) prints "stop TIME". The end time is taken before "end" is
// printed, so a SIGTERM that lands meanwhile (a regrouping as the job finishes) prints
// "stop TIME" alone, never "end stop TIME".
pb::SubmitRequest Reporter(double seconds, StageTimes stages, int priority = 0) {
  pb::SubmitRequest req;
  req.add_command(
      "echo start $(date +%s.%N) $CUDA_VISIBLE_DEVICES $SCHEDKIT_GROUP $SCHEDKIT_GROUP_SIZE "
      "$SCHEDKIT_RATE $SCHEDKIT_GUEST; trap 'echo stop $(date +%s.%N); exit 143' TERM; "
      "sleep " +
      std::to_string(seconds) + " & wait $!; t=$(date +%s.%N); echo end $t");
  req.set_shell(true);
  req.set_gpus(1);
  req.set_priority(priority);
  req.set_iteration_time_s(1.0);
  for (double t : stages) req.add_stage_times_s(t);
  return req;
}

std::vector<RunSpan> RunsOf(JobId job, const std::string& stdout_text) {
  std::vector<RunSpan> runs;
  std::istringstream in(stdout_text);
  std::string word;
  while (in >> word) {
    if (word == "start") {
      RunSpan r;
      r.job = job;
      in >> r.begin >> r.gpus >> r.group >> r.group_size >> r.rate >> r.guest;
      runs.push_back(r);
    } else if ((word == "end" || word == "stop") && !runs.empty()) {
      in >> runs.back().end;
    }
  }
  return runs;
}

// The largest set of runs under way at one instant (ties: the first such instant).
std::vector<RunSpan> MostAtOnce(const std::vector<RunSpan>& runs) {
  std::vector<RunSpan> best;
  for (const RunSpan& r : runs) {
    std::vector<RunSpan> now;
    for (const RunSpan& o : runs) {
      if (o.begin <= r.begin && (o.end < 0 || o.end > r.begin)) now.push_back(o);
    }
    if (now.size() > best.size()) best = now;
  }
  return best;
}

std::vector<RunSpan> AllRuns(Server& server, const std::vector<JobId>& jobs) {
  std::vector<RunSpan> all;
  for (JobId id : jobs) {
    const std::vector<RunSpan> runs = RunsOf(id, ReadFile(server.Get(id).stdout_path()));
    all.insert(all.end(), runs.begin(), runs.end());
  }
  return all;
}

// `schedkit drain NODE` or `schedkit undrain NODE` against the server; true on success.
bool SetDrained(Server& server, const std::string& node, bool drained) {
  const std::string cmd = kCli + (drained ? " drain" : " undrain") + " --state-dir " +
                          server.state_dir() + " " + node + " > /dev/null";
  return std::system(cmd.c_str()) == 0;
}

// Four one-GPU reporters of `seconds` each, two data-heavy and two GPU-heavy, which Muri
// pairs; their ids, in submit order (fewer if a submit failed). They are queued while the
// node is drained and released together, as in Muri's testbed where all four are there at
// t=0: submitted one by one to a live service, the first could start alone before the
// others arrive (a loaded machine makes that likely); Muri's rebuilt schedule then
// preempts and regroups it, and whether all four ever overlap depends on timing.
std::vector<JobId> SubmitMuriQuartet(Server& server, double seconds) {
  std::vector<JobId> jobs;
  EXPECT_TRUE(SetDrained(server, "local", true));
  for (int i = 0; i < 4; ++i) {
    const StageTimes stages = i % 2 == 0 ? StageTimes{0.7, 0.2, 0.1} : StageTimes{0.1, 0.8, 0.1};
    Result<JobId> id = server.Submit(Reporter(seconds, stages));
    EXPECT_TRUE(id.ok()) << id.status().message();
    if (id.ok()) jobs.push_back(*id);
  }
  EXPECT_EQ(server.ClusterStatus().pending(), static_cast<int64_t>(jobs.size()));
  EXPECT_TRUE(SetDrained(server, "local", false));
  return jobs;
}

// Muri's testbed: 4 one-GPU jobs, two data-heavy and two GPU-heavy, on 2 GPU slots. Muri
// interleaves them in pairs: all four run at once, each pair on one slot, in one group.
TEST(RuntimeColocation, MuriRunsFourOneGpuJobsPairwiseOnTwoSlots) {
  const std::string dir = FreshDir("muri");
  Server server(dir + "/state", {"--gpus", "2", "--policy", "muri-s", "--grace-s", "2"});
  const std::vector<JobId> jobs = SubmitMuriQuartet(server, 3);
  ASSERT_EQ(jobs.size(), 4u);
  for (JobId id : jobs) {
    ASSERT_TRUE(WaitFor([&] { return server.InState(id, pb::SUCCEEDED); }, 60)) << id;
  }
  const std::vector<RunSpan> at_once = MostAtOnce(AllRuns(server, jobs));
  ASSERT_EQ(at_once.size(), 4u) << "four jobs ran at once on two slots";
  std::map<std::string, std::vector<RunSpan>> by_slot;
  for (const RunSpan& r : at_once) by_slot[r.gpus].push_back(r);
  ASSERT_EQ(by_slot.size(), 2u);
  for (const auto& [slot, pair] : by_slot) {
    ASSERT_EQ(pair.size(), 2u) << "slot " << slot;
    EXPECT_EQ(pair[0].group, pair[1].group) << "slot " << slot << " shared by one group";
    EXPECT_NE(pair[0].group, "0");
    for (const RunSpan& r : pair) {
      EXPECT_EQ(r.group_size, "2");
      EXPECT_EQ(r.guest, "0");
      EXPECT_LT(std::stod(r.rate), 1.0) << "job " << r.job << " shares its GPU";
    }
  }
  EXPECT_NE(by_slot.begin()->second[0].group, by_slot.rbegin()->second[0].group);
  for (JobId id : jobs) {  // The service reports what each job was last told.
    const pb::Job j = server.Get(id);
    const RunSpan last = RunsOf(id, ReadFile(j.stdout_path())).back();
    EXPECT_EQ(std::to_string(j.group_size()), last.group_size) << id;
    EXPECT_EQ(std::to_string(j.group()), last.group) << id;
  }
}

// AntMan: an opportunistic job (priority 1) runs as a guest beside a guaranteed one on the
// only slot, without booking it.
TEST(RuntimeColocation, AntmanRunsAnOpportunisticJobBesideAGuaranteedOne) {
  const std::string dir = FreshDir("antman");
  Server server(dir + "/state", {"--gpus", "1", "--policy", "antman", "--grace-s", "2"});
  Result<JobId> guaranteed = server.Submit(Reporter(3, {0.3, 0.6, 0.1}, /*priority=*/0));
  ASSERT_TRUE(guaranteed.ok()) << guaranteed.status().message();
  ASSERT_TRUE(WaitFor([&] { return server.InState(*guaranteed, pb::RUNNING); }, 20));
  Result<JobId> opportunistic = server.Submit(Reporter(1, {0.3, 0.6, 0.1}, /*priority=*/1));
  ASSERT_TRUE(opportunistic.ok()) << opportunistic.status().message();
  ASSERT_TRUE(WaitFor([&] { return server.InState(*opportunistic, pb::SUCCEEDED); }, 30));
  ASSERT_TRUE(WaitFor([&] { return server.InState(*guaranteed, pb::SUCCEEDED); }, 30));
  const std::vector<RunSpan> at_once = MostAtOnce(AllRuns(server, {*guaranteed, *opportunistic}));
  ASSERT_EQ(at_once.size(), 2u) << "the opportunistic job ran beside the guaranteed one";
  const RunSpan& host = at_once[0].job == *guaranteed ? at_once[0] : at_once[1];
  const RunSpan& guest = at_once[0].job == *guaranteed ? at_once[1] : at_once[0];
  EXPECT_EQ(host.gpus, guest.gpus);
  EXPECT_EQ(host.guest, "0");
  EXPECT_EQ(guest.guest, "1");
  EXPECT_EQ(guest.group, "0");  // Books nothing.
}

// A SIGKILL of the service while groups run: the surviving members are re-adopted into
// their groups (same processes, same group ids), a member that died meanwhile is
// requeued and started again; no job is lost and none runs twice.
TEST(RuntimeColocation, SigkillKeepsGroupsWholeAndNoMemberIsLostOrDuplicated) {
  const std::string dir = FreshDir("muri_crash");
  Server server(dir + "/state", {"--gpus", "2", "--policy", "muri-s", "--grace-s", "2"});
  const std::vector<JobId> jobs = SubmitMuriQuartet(server, 60);
  ASSERT_EQ(jobs.size(), 4u);
  auto all_paired = [&] {
    for (JobId id : jobs) {
      const pb::Job j = server.Get(id);
      if (j.state() != pb::RUNNING || j.group_size() != 2) return false;
    }
    return true;
  };
  ASSERT_TRUE(WaitFor(all_paired, 30));
  std::map<JobId, pb::Job> before;
  for (JobId id : jobs) before[id] = server.Get(id);
  const JobId victim = jobs[0];
  server.Kill(SIGKILL);
  const pid_t monitor = static_cast<pid_t>(std::atol(before[victim].backend_id().c_str()));
  kill(-monitor, SIGKILL);
  ASSERT_TRUE(WaitFor([&] { return kill(monitor, 0) != 0; }, 5));
  const double restarted_at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  server.Start();
  // The survivors were re-adopted (into their groups' bookings: DecisionApplier::Adopt),
  // the victim requeued. The fresh policy then regroups all four.
  for (JobId id : jobs) {
    if (id != victim) EXPECT_EQ(EventCount(server.state_dir(), id, "adopted"), 1) << id;
  }
  EXPECT_EQ(EventCount(server.state_dir(), victim, "requeued"), 1);
  ASSERT_TRUE(WaitFor(all_paired, 30)) << "all four run in pairs again";
  // Every job runs in exactly one process (the victim's killed run aside).
  auto live_once = [&] {
    std::map<JobId, int> live;
    for (const RunSpan& r : AllRuns(server, jobs)) {
      if (r.job == victim && r.begin < restarted_at) continue;
      live[r.job] += r.end < 0 ? 1 : 0;
    }
    return live.size() == 4 &&
           std::all_of(live.begin(), live.end(), [](const auto& l) { return l.second == 1; });
  };
  EXPECT_TRUE(WaitFor(live_once, 20)) << "each job runs in exactly one process";
  const pb::ClusterStatusResponse status = server.ClusterStatus();
  EXPECT_EQ(status.running(), 4);
  EXPECT_EQ(status.nodes(0).free_gpus(), 0);
  std::map<std::string, std::set<int64_t>> groups_on;  // Placement -> groups there.
  for (JobId id : jobs) {
    const pb::Job j = server.Get(id);
    groups_on[j.placement()].insert(j.group());
  }
  EXPECT_EQ(groups_on.size(), 2u);
  for (const auto& [slot, groups] : groups_on) EXPECT_EQ(groups.size(), 1u) << slot;
  for (JobId id : jobs) EXPECT_TRUE(server.Cancel(id).ok()) << id;
}

}  // namespace
}  // namespace schedkit::runtime::testing
