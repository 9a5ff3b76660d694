// The openb pod lists as a simulator trace and the openb node lists as a cluster spec
// (docs/formats.md, "openb"), on small files written in the upstream layout.
#include <gtest/gtest.h>

#include <string>

#include "schedkit/cluster.h"
#include "schedkit/trace.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::TempFile;

constexpr char kHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

// The error of loading `rows` (after the header) with the temp path shown as "p.csv".
std::string TraceError(const std::string& rows) {
  TempFile f(kHeader + rows, "p.csv");
  Result<Trace> t = LoadTrace(f.path());
  if (t.ok()) return "";
  std::string msg = t.status().message();
  if (msg.compare(0, f.path().size(), f.path()) == 0) msg = "p.csv" + msg.substr(f.path().size());
  return msg;
}

TEST(OpenbTrace, DetectedAndReadAsJobsWithSharesTimesAndModels) {
  TempFile f(std::string(kHeader) +
             "pod-a,12000,16384,1,1000,,LS,Running,100,1100,100\n"
             "pod-b,6500,12288,1,460,,LS,Running,150,400,170\n"       // Runs 170 -> 400.
             "pod-c,4000,8192,0,0,,BE,Running,90,200,90\n"            // CPU-only: dropped.
             "pod-d,88000,327680,8,1000,V100M32|V100M16,LS,Pending,120,180,\n"  // Never ran.
             "pod-e,1000,1024,1,500,,BE,Pending,130,130,\n",  // No time: dropped.
             "p.csv");
  Result<TraceFormat> format = DetectTraceFormat(f.path());
  ASSERT_TRUE(format.ok()) << format.status().message();
  EXPECT_EQ(*format, TraceFormat::kOpenb);
  EXPECT_EQ(ParseTraceFormat("openb").value(), TraceFormat::kOpenb);
  Result<Trace> t = LoadTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 3u);
  // Sorted by submit: a (100), d (120), b (150); submit counts from the first GPU pod.
  const JobSpec& a = t->jobs[0];
  EXPECT_EQ(a.id, 0);
  EXPECT_EQ(a.name, "pod-a");
  EXPECT_EQ(a.submit_s, 0);
  EXPECT_EQ(a.duration_s, 1000);
  EXPECT_EQ(a.gpus, 1);
  EXPECT_EQ(a.gpu_milli, 1000);
  EXPECT_EQ(a.cpus, 12);
  EXPECT_EQ(a.mem_gb, 16);
  const JobSpec& d = t->jobs[1];
  EXPECT_EQ(d.id, 3);  // The row's index, CPU-only pods counted.
  EXPECT_EQ(d.submit_s, 20);
  EXPECT_EQ(d.duration_s, 60);  // No scheduled_time: deletion - creation.
  EXPECT_EQ(d.gpus, 8);
  ASSERT_EQ(d.profile.type_speeds.size(), 2u);
  EXPECT_EQ(d.profile.type_speeds[0].gpu_type, "V100M16");  // Sorted by name.
  EXPECT_EQ(d.profile.type_speeds[1].gpu_type, "V100M32");
  EXPECT_EQ(d.profile.type_speeds[0].speed, 1);
  const JobSpec& b = t->jobs[2];
  EXPECT_EQ(b.submit_s, 50);
  EXPECT_EQ(b.duration_s, 230);
  EXPECT_EQ(b.gpu_milli, 460);
  EXPECT_EQ(b.cpus, 7);  // 6.5 cores, rounded up.
  EXPECT_EQ(b.mem_gb, 12);
}

TEST(OpenbTrace, SharesRoundTripThroughTheNativeFormat) {
  TempFile f(std::string(kHeader) + "pod-a,1000,1024,1,250,T4,LS,Running,0,10,0\n"
                                    "pod-b,1000,1024,2,1000,,LS,Running,0,10,0\n",
             "p.csv");
  Result<Trace> t = LoadTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  TempFile out("", "native.csv");
  ASSERT_TRUE(WriteNativeTrace(*t, out.path()).ok());
  Result<Trace> back = LoadTrace(out.path());
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->jobs.size(), 2u);
  EXPECT_EQ(back->jobs[0].gpu_milli, 250);
  EXPECT_EQ(back->jobs[1].gpu_milli, kMilliPerGpu);
  EXPECT_EQ(back->jobs[0].profile.type_speeds, t->jobs[0].profile.type_speeds);
  TempFile bad("job_id,submit_s,gpus,duration_s,gpu_milli\n0,0,2,10,500\n", "n.csv");
  Result<Trace> b = LoadTrace(bad.path());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), bad.path() + ":2: field 'gpu_milli': '500' is a fraction of a "
                                               "GPU: the job must ask for 1 GPU");
}

TEST(OpenbTrace, BadRowsNameTheFileTheLineAndTheField) {
  EXPECT_EQ(TraceError("p,1000,0,1,500,,LS,Running,,10,\n"),
            "p.csv:2: field 'creation_time': is missing: the simulator needs every GPU pod's arrival");
  EXPECT_EQ(TraceError("p,1000,0,1,500,,LS,Running,5,,\n"),
            "p.csv:2: field 'deletion_time': is missing: the simulator needs every GPU pod's end");
  EXPECT_EQ(TraceError("p,1000,0,1,500,,LS,Running,5,10,\nq,1000,0,1,500,,LS,Running,5,6,7\n"),
            "p.csv:3: field 'deletion_time': '6' is before the pod's scheduled_time (or "
            "creation_time) 7");
  EXPECT_EQ(TraceError("p,1000,0,2,500,,LS,Running,5,10,5\n"),
            "p.csv:2: field 'gpu_milli': '500' must be 1000 when num_gpu is more than 1");
  EXPECT_EQ(TraceError("p,1000,0,1,500,,LS,Running,x,10,5\n"),
            "p.csv:2: field 'creation_time': 'x' is not an integer");
  EXPECT_EQ(TraceError("p,1000,0,0,0,,LS,Running,5,10,5\n"), "p.csv: no pod asks for a GPU");
}

TEST(OpenbNodes, AreAClusterSpec) {
  TempFile f(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "node-a,64000,262144,2,P100\n"
      "node-b,96000,786432,8,V100M32\n"
      "node-c,32000,131072,0,\n",
      "n.csv");
  Result<ClusterSpec> s = LoadClusterSpec(f.path());
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->nodes.size(), 3u);
  EXPECT_EQ(s->num_switches(), 1);
  EXPECT_EQ(s->nodes[0].gpus, 2);
  EXPECT_EQ(s->nodes[0].cpus, 64);
  EXPECT_EQ(s->nodes[0].mem_gb, 256);
  EXPECT_EQ(s->nodes[0].gpu_type, "P100");
  EXPECT_EQ(s->nodes[1].gpu_type, "V100M32");
  EXPECT_EQ(s->nodes[2].gpus, 0);
  EXPECT_EQ(s->nodes[2].gpu_type, kGenericGpuType);
  TempFile bad("sn,cpu_milli,memory_mib,gpu,model\nnode-a,64000,262144,2,\n", "n.csv");
  Result<ClusterSpec> b = LoadClusterSpec(bad.path());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(),
            bad.path() + ":2: field 'model': '' must name the GPU model of a node with GPUs");
}

}  // namespace
}  // namespace schedkit
