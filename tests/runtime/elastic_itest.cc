// Elastic jobs under the runtime (issue 16; docs/runtime.md, "Elastic jobs"): `schedkit
// submit --max-gpus` stores the job's ceiling, `serve --policy optimus` grows it into idle
// GPUs, the job sees its real count in SCHEDKIT_GPUS, and its progress is booked at the
// shipped scaling model's speed-up. Real `schedkit serve`, real processes, the real CLI.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

#include "runtime_itest_util.h"
#include "schedkit/run.h"

namespace schedkit::runtime::testing {
namespace {

// GPUs in a one-node placement text "node:0-2,5" (what the service reports).
int PlacementGpus(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return 0;
  int n = 0;
  std::istringstream in(text.substr(colon + 1));
  for (std::string range; std::getline(in, range, ',');) {
    const size_t dash = range.find('-');
    n += dash == std::string::npos ? 1 : std::stoi(range.substr(dash + 1)) - std::stoi(range) + 1;
  }
  return n;
}

TEST(RuntimeElastic, OptimusGrowsAnElasticJobIntoIdleGpusAndARigidJobKeepsItsCount) {
  const std::string dir = FreshDir("elastic");
  const std::string state = dir + "/state";
  Server server(state, {"--gpus", "4", "--policy", "optimus", "--grace-s", "1"});
  const std::string script = "echo gpus=$SCHEDKIT_GPUS; sleep 60";
  pb::SubmitRequest rigid_req;
  rigid_req.add_command(script);
  rigid_req.set_shell(true);
  rigid_req.set_gpus(1);
  rigid_req.set_duration_s(60);
  Result<JobId> rigid = server.Submit(rigid_req);
  ASSERT_TRUE(rigid.ok()) << rigid.status().message();
  // Through the CLI: 1 GPU asked, up to 3. Optimus gives each job what it asks (2 of 4),
  // then hands the 2 left over to the elastic job: 3 GPUs, whichever job it saw first.
  auto [rc, out] = RunCli("submit --state-dir '" + state +
                          "' --gpus 1 --max-gpus 3 --duration 60 -- sh -c '" + script + "'");
  ASSERT_EQ(rc, 0) << out;
  const JobId elastic = std::stoll(out);
  ASSERT_TRUE(WaitFor(
      [&] {
        const std::string text = ReadFile(server.Get(elastic).stdout_path());
        return text.find("gpus=3\n") != std::string::npos;
      },
      20))
      << ReadFile(server.Get(elastic).stdout_path());
  ASSERT_TRUE(WaitFor([&] { return server.InState(*rigid, pb::RUNNING); }, 20));

  const pb::Job e = server.Get(elastic);
  EXPECT_EQ(e.state(), pb::RUNNING);
  EXPECT_EQ(e.gpus(), 1);  // The request stays; the run is on more.
  EXPECT_EQ(e.max_gpus(), 3);
  EXPECT_EQ(PlacementGpus(e.placement()), 3) << e.placement();
  // Its progress is booked at the shipped model's speed-up for 3 GPUs (the runtime gives
  // no model name, so the table's default curve): more than 1 solo second per second.
  Result<std::shared_ptr<const ScalingModel>> model = ShippedScalingModel();
  ASSERT_TRUE(model.ok()) << model.status().message();
  JobSpec spec;
  spec.gpus = 1;
  spec.max_gpus = 3;
  EXPECT_DOUBLE_EQ(e.rate(), (*model)->Speedup(spec, 3));
  EXPECT_GT(e.rate(), 1.0);

  const pb::Job r = server.Get(*rigid);
  EXPECT_EQ(r.max_gpus(), 0);
  EXPECT_EQ(PlacementGpus(r.placement()), 1) << r.placement();
  EXPECT_EQ(r.rate(), 1.0);
  EXPECT_TRUE(WaitFor([&] { return ReadFile(r.stdout_path()) == "gpus=1\n"; }, 20))
      << ReadFile(r.stdout_path());

  // `schedkit jobs` shows the grown placement; the cluster is full.
  auto [jobs_rc, jobs_out] = RunCli("jobs --state-dir '" + state + "'");
  ASSERT_EQ(jobs_rc, 0) << jobs_out;
  EXPECT_NE(jobs_out.find(" " + e.placement() + " "), std::string::npos) << jobs_out;
  const pb::ClusterStatusResponse status = server.ClusterStatus();
  int free = 0;
  for (const auto& n : status.nodes()) free += n.free_gpus();
  EXPECT_EQ(free, 0);

  EXPECT_TRUE(server.Cancel(elastic).ok());
  EXPECT_TRUE(server.Cancel(*rigid).ok());
}

TEST(RuntimeElastic, ABadMaxGpusIsRefusedWithOneLineNamingTheField) {
  const std::string dir = FreshDir("elasticbad");
  const std::string state = dir + "/state";
  Server server(state, {"--gpus", "4", "--policy", "optimus"});
  ExpectCliSubmitRefused(state, "--gpus 2 --max-gpus 1 -- true",
                         "INVALID_ARGUMENT: max_gpus: 1 must be 0 (rigid) or from gpus (2)");
  ExpectInvalidSubmits(server, {{[](pb::SubmitRequest* r) { r->set_max_gpus(5); },
                                 "max_gpus: 5 must be 0 (rigid) or from gpus (1) to the cluster's 4"},
                                {[](pb::SubmitRequest* r) { r->set_max_gpus(-1); }, "max_gpus: -1"}});
  pb::GetJobRequest get;  // Nothing was stored.
  get.set_job_id(1);
  pb::Job job;
  EXPECT_EQ(server.client().stub().GetJob(server.client().Context().get(), get, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace schedkit::runtime::testing
