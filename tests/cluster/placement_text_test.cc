// The one placement text format (Placement::ToString / ParsePlacement): jobs.csv, the
// runtime's store and its gRPC field all use it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedkit/cluster.h"

namespace schedkit {
namespace {

Placement Of(std::vector<std::pair<int, uint64_t>> shares) {
  Placement p;
  for (auto [node, mask] : shares) p.shares.push_back(NodeShare{.node = node, .gpu_mask = mask});
  return p;
}

TEST(PlacementText, WritesRunsAsRangesAndReadsThemBack) {
  const Placement p = Of({{0, 0b1111}, {1, 0b101}, {3, 0b110}, {12, uint64_t{1} << 63}});
  EXPECT_EQ(p.ToString(), "n0:0-3;n1:0,2;n3:1-2;n12:63");
  Result<Placement> back = ParsePlacement(p.ToString());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, p);
  EXPECT_EQ(Placement().ToString(), "");
  ASSERT_TRUE(ParsePlacement("").ok());
  EXPECT_TRUE(ParsePlacement("")->empty());
  // A share with no GPU (CPUs only) round-trips too.
  EXPECT_EQ(ParsePlacement("n2:")->shares.at(0).gpu_mask, 0u);
}

TEST(PlacementText, NodeNamesReplaceTheIndices) {
  const std::vector<std::string> names = {"box-a", "box-b"};
  const Placement p = Of({{0, 0b11}, {1, 0b1000}});
  EXPECT_EQ(p.ToString(names), "box-a:0-1;box-b:3");
  Result<Placement> back = ParsePlacement("box-a:0-1;box-b:3", names);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, p);
  EXPECT_EQ(ParsePlacement("box-c:0", names).status().message(),
            "placement 'box-c:0': node 'box-c' is not a node of the cluster");
}

TEST(PlacementText, BadTextGivesOneLineNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"0:15", "placement '0:15': node '0' is not 'n<index>'"},
      {"n0", "placement 'n0': share 'n0' is not '<node>:<gpus>'"},
      {"n0:9-2", "placement 'n0:9-2': GPU range '9-2' is not ascending"},
      {"n0:1,1", "placement 'n0:1,1': GPU 1 is given twice"},
      {"n0:64", "placement 'n0:64': GPU 64 is past the last index 63"},
      {"n0:x", "placement 'n0:x': GPUs 'x' are not an index or a range 'a-b'"},
      {"n0:1,", "placement 'n0:1,': share 'n0:1,' ends with ','"},
      {"n1:0;n0:0",
       "placement 'n1:0;n0:0': share 'n0:0' is out of order (nodes go once each, "
       "in ascending node order)"},
      {"n0:0;", "placement 'n0:0;': ends with ';'"},
  };
  for (const auto& [text, message] : cases) {
    Result<Placement> p = ParsePlacement(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().message(), message);
  }
}

}  // namespace
}  // namespace schedkit
