// GPU shares under the runtime (issue 18; docs/runtime.md, "GPU shares"): `schedkit submit
// --gpu-milli` asks for a share of one GPU, `serve --placement fgd` packs such jobs onto one
// GPU, each sees its share in its environment, and a job that does not fit waits. Real
// `schedkit serve`, real processes, the real CLI.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

constexpr const char* kScript =
    "echo milli=$SCHEDKIT_GPU_MILLI mps=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "
    "dev=$CUDA_VISIBLE_DEVICES; sleep 60";

JobId SubmitShare(const std::string& state, int milli) {
  auto [rc, out] = RunCli("submit --state-dir '" + state + "' --gpus 1 --gpu-milli " +
                          std::to_string(milli) + " -- sh -c '" + kScript + "'");
  EXPECT_EQ(rc, 0) << out;
  return rc == 0 ? std::stoll(out) : 0;
}

// One node of 2 GPUs, FIFO with FGD placement. Two 500-milli jobs share GPU 0 (FGD keeps
// GPU 1 whole: the target workload is empty, every GPU scores alike and the first wins),
// a whole-GPU job takes GPU 1, and a third 500-milli job waits until a share frees up.
TEST(RuntimeSharing, TwoHalfGpuJobsShareOneGpuAndAThirdWaits) {
  const std::string dir = FreshDir("sharing");
  const std::string state = dir + "/state";
  Server server(state, {"--gpus", "2", "--policy", "fifo", "--placement", "fgd"});
  const JobId a = SubmitShare(state, 500);
  const JobId b = SubmitShare(state, 500);
  ASSERT_TRUE(WaitFor([&] { return server.InState(a, pb::RUNNING); }, 20));
  ASSERT_TRUE(WaitFor([&] { return server.InState(b, pb::RUNNING); }, 20));
  const JobId whole = server.SubmitArgv({"sleep", "60"}, 1);
  ASSERT_TRUE(WaitFor([&] { return server.InState(whole, pb::RUNNING); }, 20));
  const JobId c = SubmitShare(state, 500);

  const pb::Job ja = server.Get(a), jb = server.Get(b);
  EXPECT_EQ(ja.gpu_milli(), 500);
  EXPECT_EQ(ja.placement(), "local:0@500");
  EXPECT_EQ(jb.placement(), "local:0@500");
  EXPECT_EQ(server.Get(whole).placement(), "local:1");
  EXPECT_EQ(server.Get(whole).gpu_milli(), kMilliPerGpu);
  for (const pb::Job& j : {ja, jb}) {
    EXPECT_TRUE(
        WaitFor([&] { return ReadFile(j.stdout_path()) == "milli=500 mps=50 dev=0\n"; }, 20))
        << ReadFile(j.stdout_path());
  }
  // A share is not resized.
  auto [resize_rc, resize_out] =
      RunCli("resize --state-dir '" + state + "' " + std::to_string(b) + " --gpus 2");
  EXPECT_NE(resize_rc, 0);
  EXPECT_NE(resize_out.find("job " + std::to_string(b) +
                            " runs on a share of one GPU (500 milli-GPU); only a job on whole "
                            "GPUs can be resized"),
            std::string::npos)
      << resize_out;
  // The cluster is full: no GPU whole, and GPU 0's shares are taken. c waits.
  const pb::ClusterStatusResponse status = server.ClusterStatus();
  ASSERT_EQ(status.nodes_size(), 1);
  EXPECT_EQ(status.nodes(0).free_gpus(), 0);
  EXPECT_FALSE(WaitFor([&] { return !server.InState(c, pb::PENDING); }, 1.5));

  // When a ends, c takes its share of GPU 0.
  EXPECT_TRUE(server.Cancel(a).ok());
  ASSERT_TRUE(WaitFor([&] { return server.InState(c, pb::RUNNING); }, 20));
  EXPECT_EQ(server.Get(c).placement(), "local:0@500");
  EXPECT_TRUE(WaitFor(
      [&] { return ReadFile(server.Get(c).stdout_path()) == "milli=500 mps=50 dev=0\n"; }, 20));

  // `schedkit jobs` shows the share in the placement.
  auto [jobs_rc, jobs_out] = RunCli("jobs --state-dir '" + state + "'");
  ASSERT_EQ(jobs_rc, 0) << jobs_out;
  EXPECT_NE(jobs_out.find(" local:0@500 "), std::string::npos) << jobs_out;
  for (JobId id : {b, c, whole}) EXPECT_TRUE(server.Cancel(id).ok());
}

// A whole-GPU job's environment says so, and MPS is left alone.
TEST(RuntimeSharing, AWholeGpuJobSeesMilli1000AndNoMpsLimit) {
  const std::string dir = FreshDir("sharingwhole");
  const std::string state = dir + "/state";
  Server server(state, {"--gpus", "1"});
  pb::SubmitRequest req;
  req.add_command("echo milli=$SCHEDKIT_GPU_MILLI mps=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE-unset}");
  req.set_shell(true);
  req.set_gpus(1);
  Result<JobId> id = server.Submit(req);
  ASSERT_TRUE(id.ok()) << id.status().message();
  ASSERT_TRUE(WaitFor([&] { return server.InState(*id, pb::SUCCEEDED); }, 20));
  EXPECT_EQ(ReadFile(server.Get(*id).stdout_path()), "milli=1000 mps=unset\n");
}

TEST(RuntimeSharing, ABadShareIsRefusedWithOneLineNamingTheField) {
  const std::string dir = FreshDir("sharingbad");
  const std::string state = dir + "/state";
  Server server(state, {"--gpus", "4"});
  ExpectCliSubmitRefused(state, "--gpus 2 --gpu-milli 300 -- true",
                         "INVALID_ARGUMENT: gpu_milli: a share of 300 milli-GPU is of one GPU: "
                         "gpus must be 1 (got 2)");
  ExpectInvalidSubmits(
      server, {{[](pb::SubmitRequest* r) { r->set_gpu_milli(1001); }, "gpu_milli: 1001 must be 0"},
               {[](pb::SubmitRequest* r) { r->set_gpu_milli(-5); }, "gpu_milli: -5 must be 0"},
               {[](pb::SubmitRequest* r) {
                  r->set_gpu_milli(500);
                  r->set_max_gpus(2);
                },
                "max_gpus 0 (got 2)"}});
  // A whole GPU asked as 1000 is accepted.
  auto [ok_rc, ok_out] =
      RunCli("submit --state-dir '" + state + "' --gpus 1 --gpu-milli 1000 -- true");
  EXPECT_EQ(ok_rc, 0) << ok_out;
}

}  // namespace
}  // namespace schedkit::runtime::testing
