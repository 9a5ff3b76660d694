#include <gtest/gtest.h>

#include <string>

#include "schedkit/cluster.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::SharedPath;
using testing::SourcePath;
using testing::TempFile;

// Loads `content` as a spec file; returns the error with the temp path shown as "c.csv".
std::string SpecError(const std::string& content) {
  TempFile f(content, "c.csv");
  Result<ClusterSpec> s = LoadClusterSpec(f.path());
  if (s.ok()) return "";
  std::string msg = s.status().message();
  if (msg.compare(0, f.path().size(), f.path()) == 0) msg = "c.csv" + msg.substr(f.path().size());
  return msg;
}

int SumGpus(const ClusterSpec& s) {
  int total = 0;
  for (const NodeSpec& n : s.nodes) total += n.gpus;
  return total;
}

TEST(ClusterSpecTest, LoadsMuriSpec) {
  Result<ClusterSpec> s = LoadClusterSpec(SourcePath("data/clusters/muri_n8g8.csv"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->source, SourcePath("data/clusters/muri_n8g8.csv"));
  ASSERT_EQ(s->nodes.size(), 8u);
  EXPECT_EQ(s->num_switches(), 1);
  EXPECT_EQ(SumGpus(*s), 64);
  for (const NodeSpec& n : s->nodes) {
    EXPECT_EQ(n.switch_id, 0);
    EXPECT_EQ(n.gpus, 8);
    EXPECT_EQ(n.cpus, 92);
    EXPECT_EQ(n.mem_gb, 520.0);
    EXPECT_EQ(n.gpu_type, "generic");
  }
}

TEST(ClusterSpecTest, LoadsMultiSwitchTiresiasSpec) {
  Result<ClusterSpec> s = LoadClusterSpec(SharedPath("data/tiresias/specs/n160g8.csv"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->nodes.size(), 160u);
  EXPECT_EQ(s->num_switches(), 5);
  EXPECT_EQ(s->nodes[31].switch_id, 0);
  EXPECT_EQ(s->nodes[32].switch_id, 1);
  EXPECT_EQ(s->nodes[159].switch_id, 4);
  EXPECT_EQ(s->nodes[0].cpus, 128);
}

TEST(ClusterSpecTest, LoadsEverySharedSpecIncludingCrlfOnes) {
  const std::pair<const char*, size_t> files[] = {
      {"data/muri/specs/testbed_n1g8.csv", 1}, {"data/muri/specs/testbed_n2g8.csv", 2},
      {"data/muri/specs/testbed_n4g8.csv", 2}, {"data/muri/specs/testbed_n8g8.csv", 8},
      {"data/muri/specs/sim_n8g8.csv", 8},     {"data/tiresias/specs/cluster_spec.csv", 16},
      {"data/tiresias/specs/n1g4.csv", 1},     {"data/tiresias/specs/n256g8.csv", 256},
      {"data/tiresias/specs/n32g4.csv", 32},
  };
  for (const auto& [rel, nodes] : files) {
    Result<ClusterSpec> s = LoadClusterSpec(SharedPath(rel));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->nodes.size(), nodes) << rel;
  }
}

TEST(ClusterSpecTest, LoadsShippedNativeSpec) {
  Result<ClusterSpec> s = LoadClusterSpec(SourcePath("data/clusters/tiny.csv"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->nodes.size(), 2u);
  EXPECT_EQ(SumGpus(*s), 8);
  EXPECT_EQ(s->nodes[1].gpus, 4);
  EXPECT_EQ(s->nodes[1].gpu_type, "v100");
}

TEST(ClusterSpecTest, NativeHeterogeneousGroups) {
  TempFile f(
      "switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type\n"
      "0,2,8,96,512,v100\n"
      "0,1,4,48,256.5,k80\n"
      "1,3,64,128,1024,a100\n");
  Result<ClusterSpec> s = LoadClusterSpec(f.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->nodes.size(), 6u);
  EXPECT_EQ(s->num_switches(), 2);
  EXPECT_EQ(s->nodes[2].gpu_type, "k80");
  EXPECT_EQ(s->nodes[2].mem_gb, 256.5);
  EXPECT_EQ(s->nodes[2].switch_id, 0);
  EXPECT_EQ(s->nodes[3].switch_id, 1);
  EXPECT_EQ(s->nodes[5].gpus, 64);
  EXPECT_EQ(SumGpus(*s), 2 * 8 + 4 + 3 * 64);
}

TEST(ClusterSpecTest, NativeGpuTypeIsOptional) {
  TempFile f("switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node\n0,1,8,0,0\n");
  Result<ClusterSpec> s = LoadClusterSpec(f.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->nodes[0].gpu_type, "generic");
}

TEST(ClusterSpecTest, NativeErrors) {
  const std::string h = "switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type\n";
  EXPECT_EQ(SpecError(h + "1,1,8,0,0,x\n"),
            "c.csv:2: field 'switch': '1' must be 0 on the first row");
  EXPECT_EQ(SpecError(h + "0,1,8,0,0,x\n2,1,8,0,0,x\n"),
            "c.csv:3: field 'switch': '2' must be 0 or 1 (switch ids are contiguous and "
            "non-decreasing)");
  EXPECT_EQ(SpecError(h + "0,1,8,0,0,x\n1,1,8,0,0,x\n0,1,8,0,0,x\n"),
            "c.csv:4: field 'switch': '0' must be 1 or 2 (switch ids are contiguous and "
            "non-decreasing)");
  EXPECT_EQ(SpecError(h + "0,1,65,0,0,x\n"), "c.csv:2: field 'gpus_per_node': '65' must be <= 64");
  EXPECT_EQ(SpecError(h + "0,1,0,0,0,x\n"), "c.csv:2: field 'gpus_per_node': '0' must be >= 1");
  EXPECT_EQ(SpecError(h + "0,two,8,0,0,x\n"), "c.csv:2: field 'nodes': 'two' is not an integer");
  EXPECT_EQ(SpecError(h + "0,1,8,-1,0,x\n"), "c.csv:2: field 'cpus_per_node': '-1' must be >= 0");
  EXPECT_EQ(SpecError(h), "c.csv: no node rows after the header");
  EXPECT_EQ(SpecError("switch,nodes,gpus_per_node,mem_gb_per_node\n0,1,8,0\n"),
            "c.csv:1: missing column 'cpus_per_node'");
}

TEST(ClusterSpecTest, MuriErrors) {
  const std::string h = "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n";
  EXPECT_EQ(SpecError(h + "1,8,8,92,520\n1,8,8,92,520\n"),
            "c.csv:3: a Muri cluster spec has exactly one data row");
  EXPECT_EQ(SpecError(h + "1,8,x,92,520"),
            "c.csv:2: field 'num_gpu_p_node': 'x' is not an integer");
  EXPECT_EQ(SpecError(h + "0,8,8,92,520"), "c.csv:2: field 'num_switch': '0' must be >= 1");
  EXPECT_EQ(SpecError(h + "1,8,128,92,520"),
            "c.csv:2: field 'num_gpu_p_node': '128' must be <= 64");
  EXPECT_EQ(SpecError(h + "1,8,8,92"), "c.csv:2: 4 fields, expected 5 (as in the header)");
  EXPECT_EQ(SpecError(h), "c.csv: no data row after the header");
  EXPECT_EQ(SpecError("num_switch,num_node_p_switch,num_gpu_p_node\n1,1,1\n"),
            "c.csv:1: missing column 'num_cpu_p_node'");
  EXPECT_EQ(SpecError(h + "1000,1000000,8,92,520"),
            "c.csv:2: field 'num_node_p_switch': '1000000' makes more than 1048576 nodes");
}

TEST(ClusterSpecTest, UnknownHeaderAndMissingFile) {
  EXPECT_EQ(SpecError("a,b\n1,2\n").rfind("c.csv:1: unrecognized cluster spec header", 0), 0u);
  EXPECT_EQ(SpecError(""), "c.csv: file is empty (expected a header line)");
  Result<ClusterSpec> s = LoadClusterSpec("/nonexistent/spec.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace schedkit
