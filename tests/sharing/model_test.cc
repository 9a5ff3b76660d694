// The sharing model: booking per GPU, the over-commit invariant and the openb loaders.
#include <gtest/gtest.h>

#include "schedkit/sharing.h"
#include "test_files.h"

namespace schedkit::sharing {
namespace {

using schedkit::testing::WriteTempFile;

SharingClusterSpec OneNode() {
  SharingClusterSpec spec;
  spec.nodes = {{"n0", 8000, 1024, 2, "T4"}};
  return spec;
}

TEST(SharingState, BooksSharesPerGpu) {
  const SharingClusterSpec spec = OneNode();
  SharingState s(&spec);
  const SharingPlacement a{0, 0b01, 600, 1000, 100};
  s.Allocate(a);
  EXPECT_EQ(s.free(0).gpu_milli[0], 400);
  EXPECT_EQ(s.free(0).gpu_milli[1], 1000);
  EXPECT_EQ(s.allocated_gpu_milli(), 600);
  EXPECT_EQ(s.fully_free_gpus(0), 1);
  EXPECT_FALSE(s.CanAllocate(SharingPlacement{0, 0b01, 500, 0, 0}));  // 400 left.
  EXPECT_TRUE(s.CanAllocate(SharingPlacement{0, 0b01, 400, 0, 0}));
  EXPECT_FALSE(s.CanAllocate(SharingPlacement{0, 0b100, 100, 0, 0}));  // No GPU 2.
  EXPECT_FALSE(s.CanAllocate(SharingPlacement{0, 0, 0, 8000, 0}));     // CPU short.
  EXPECT_FALSE(s.CanAllocate(SharingPlacement{0, 0, 0, 0, 1000}));     // Memory short.
  s.Release(a);
  EXPECT_EQ(s.allocated_gpu_milli(), 0);
  EXPECT_TRUE(s.gpu_pod_kinds(0).empty());
  s.CheckInvariants();
}

TEST(SharingState, TracksPodKindsPerNode) {
  const SharingClusterSpec spec = OneNode();
  SharingState s(&spec);
  s.Allocate(SharingPlacement{0, 0b01, 300, 0, 0});
  s.Allocate(SharingPlacement{0, 0b01, 300, 0, 0});
  s.Allocate(SharingPlacement{0, 0b10, 1000, 0, 0});
  EXPECT_EQ(s.gpu_pod_kinds(0), (std::map<int, int>{{0, 2}, {1, 1}}));
}

TEST(SharingStateDeathTest, OverCommittingAGpuAborts) {
  const SharingClusterSpec spec = OneNode();
  SharingState s(&spec);
  s.Allocate(SharingPlacement{0, 0b01, 600, 0, 0});
  EXPECT_DEATH(s.Allocate(SharingPlacement{0, 0b01, 500, 0, 0}), "over-commits");
  // The booking is ClusterState's (schedkit/sharing.h): it refuses to free a GPU that is
  // free; CPU and memory past capacity are SharingState's own check.
  EXPECT_DEATH(s.Release(SharingPlacement{0, 0b10, 500, 0, 0}), "releasing free GPUs");
  EXPECT_DEATH(s.Release(SharingPlacement{0, 0, 0, 1, 0}), "frees more CPU or memory");
}

TEST(Fits, ChecksModelCpuMemoryAndGpuShares) {
  const SharingClusterSpec spec = OneNode();
  SharingState s(&spec);
  s.Allocate(SharingPlacement{0, 0b01, 600, 0, 0});
  EXPECT_TRUE(Fits(s, 0, PodSpec{"p", 1000, 10, 1, 400, ""}));
  EXPECT_FALSE(Fits(s, 0, PodSpec{"p", 1000, 10, 2, 1000, ""}));  // One fully free GPU.
  EXPECT_TRUE(Fits(s, 0, PodSpec{"p", 1000, 10, 1, 1000, "P100|T4"}));
  EXPECT_FALSE(Fits(s, 0, PodSpec{"p", 1000, 10, 1, 100, "P100"}));
  EXPECT_TRUE(Fits(s, 0, PodSpec{"p", 8000, 1024, 0, 0, "P100"}));  // CPU pods: no model.
  EXPECT_FALSE(Fits(s, 0, PodSpec{"p", 8001, 0, 0, 0, ""}));
}

TEST(ModelAccepts, MatchesOneOfTheListedModels) {
  EXPECT_TRUE(ModelAccepts("", ""));
  EXPECT_TRUE(ModelAccepts("V100M16|V100M32", "V100M32"));
  EXPECT_FALSE(ModelAccepts("V100M16|V100M32", "V100M3"));
  EXPECT_FALSE(ModelAccepts("T4", ""));
}

TEST(OpenbLoaders, ReadPodsInTheUpstreamLayout) {
  const std::string path = WriteTempFile(
      "pods.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
      "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\n"
      "openb-pod-0002,88000,327680,8,1000,V100M16|V100M32,BE,Succeeded,1,2,1\n"
      "openb-pod-0003,4000,8192,0,0,,BE,Running,1,2,1\n");
  Result<std::vector<PodSpec>> pods = LoadOpenbPods(path);
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 4u);
  EXPECT_TRUE((*pods)[1].fractional());
  EXPECT_EQ((*pods)[1].gpu_milli, 460);
  EXPECT_EQ((*pods)[2].total_gpu_milli(), 8000);
  EXPECT_EQ((*pods)[2].gpu_models, "V100M16|V100M32");
  EXPECT_EQ((*pods)[3].gpus, 0);
  // The multigpu50 layout has no gpu_spec column.
  Result<std::vector<PodSpec>> short_layout = LoadOpenbPods(WriteTempFile(
      "pods_short.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,10,1,500\n"));
  ASSERT_TRUE(short_layout.ok());
  EXPECT_EQ((*short_layout)[0].gpu_models, "");
}

TEST(OpenbLoaders, ReadNodesInTheUpstreamLayout) {
  Result<SharingClusterSpec> nodes = LoadOpenbNodes(WriteTempFile(
      "nodes.csv",
      "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,32000,262144,0,\n"
      "openb-node-0228,128000,786432,8,G3\n"));
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->nodes.size(), 2u);
  EXPECT_EQ(nodes->nodes[0].gpu_model, "");
  EXPECT_EQ(nodes->nodes[1].gpu_model, "G3");
  EXPECT_EQ(nodes->TotalGpus(), 8);
}

struct BadFile {
  std::string text;
  std::string message;
};

TEST(OpenbLoaders, BadRowsNameFileLineAndField) {
  const std::string pod_header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n";
  const BadFile pods[] = {
      {pod_header + "p,1000,10,1,500\np,x,10,1,500\n", ":3: field 'cpu_milli': 'x'"},
      {pod_header + "p,1000,10,2,500\n", ":2: field 'gpu_milli': '500' must be 1000"},
      {pod_header + "p,1000,10,0,500\n", ":2: field 'gpu_milli': '500' must be 0"},
      {pod_header + "p,1000,10,1,0\n", ":2: field 'gpu_milli': '0' must be in 1-1000"},
      {pod_header + "p,1000,10,1,1001\n", ":2: field 'gpu_milli'"},
      {pod_header + "p,1000,-1,1,10\n", ":2: field 'memory_mib'"},
      {"name,cpu_milli,memory_mib,num_gpu\n", ":1: missing column 'gpu_milli'"},
      {pod_header, "no pod rows"},
  };
  for (const BadFile& b : pods) {
    Result<std::vector<PodSpec>> r = LoadOpenbPods(WriteTempFile("bad_pods.csv", b.text));
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_NE(r.status().message().find("bad_pods.csv"), std::string::npos);
    EXPECT_NE(r.status().message().find(b.message), std::string::npos) << r.status().message();
  }
  const std::string node_header = "sn,cpu_milli,memory_mib,gpu,model\n";
  const BadFile nodes[] = {
      {node_header + "n,1000,10,2,\n", ":2: field 'model': '' must name the GPU model"},
      {node_header + "n,1000,10,17,T4\n", ":2: field 'gpu'"},
      {node_header, "no node rows"},
  };
  for (const BadFile& b : nodes) {
    Result<SharingClusterSpec> r = LoadOpenbNodes(WriteTempFile("bad_nodes.csv", b.text));
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_NE(r.status().message().find(b.message), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(LoadOpenbPods(::testing::TempDir() + "/does_not_exist.csv").ok());
}

}  // namespace
}  // namespace schedkit::sharing
