// The fast JSON reader behind the DAG loader: same values as nlohmann on what it takes,
// and it declines (so nlohmann decides) everything outside its subset.
#include "dag/flat_json.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "schedkit/dag.h"
#include "test_files.h"

namespace schedkit {
namespace {

using Json = nlohmann::ordered_json;

// Walks both trees; doubles compared bit for bit.
void ExpectSame(const FlatJson::View& f, const Json& j, const std::string& at) {
  ASSERT_EQ(f.is_object(), j.is_object()) << at;
  ASSERT_EQ(f.is_array(), j.is_array()) << at;
  ASSERT_EQ(f.is_string(), j.is_string()) << at;
  ASSERT_EQ(f.is_number(), j.is_number()) << at;
  ASSERT_EQ(f.is_number_integer(), j.is_number_integer()) << at;
  ASSERT_EQ(f.size(), j.size()) << at;
  if (f.is_number()) {
    const double a = f.get<double>(), b = j.get<double>();
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << at << ": " << a << " vs " << b;
    if (f.is_number_integer()) EXPECT_EQ(f.get<int64_t>(), j.get<int64_t>()) << at;
  } else if (f.is_string()) {
    EXPECT_EQ(f.get<std::string>(), j.get<std::string>()) << at;
  } else if (f.is_array()) {
    for (size_t i = 0; i < f.size(); ++i)
      ExpectSame(f[i], j[i], at + "[" + std::to_string(i) + "]");
  } else if (f.is_object()) {
    auto it = f.begin();
    for (auto jt = j.begin(); jt != j.end(); ++jt, ++it) {  // Same keys, same order.
      EXPECT_EQ(it.key(), jt.key()) << at;
      ExpectSame(it.value(), jt.value(), at + "." + jt.key());
      EXPECT_TRUE(f.contains(jt.key()));
    }
    EXPECT_FALSE(f.contains("no such key"));
  }
}

TEST(FlatJson, SameValuesAsNlohmann) {
  const std::string text =
      " {\"a\": [0, -0, 7, -12, 123456789012345678, 1.5, -2.25e-3, 1E+2, 0.1, 3.0],\n"
      "\t\"b\": {\"x\": true, \"y\": false, \"z\": null, \"s\": \"plain text\"},\r\n"
      "  \"c\": [[], {}, [1, [2, \"three\"], {\"k\": 4}], -5, \"t\", 6],\"d\":[1,2 ,3 , 4]} ";
  FlatJson flat;
  ASSERT_TRUE(flat.Parse(text));
  ExpectSame(flat.root(), Json::parse(text), "");
  for (const std::string scalar : {"42", "-7.5", "\"s\"", "true", "null", "[]"}) {
    ASSERT_TRUE(flat.Parse(scalar)) << scalar;
    ExpectSame(flat.root(), Json::parse(scalar), scalar);
  }
}

// Outside the subset, valid JSON or not: declined, never a different reading.
TEST(FlatJson, DeclinesWhatItDoesNotReadExactly) {
  FlatJson flat;
  for (const std::string text : {"{\"a\": \"\\u0041\"}",   // escapes
                           "\xEF\xBB\xBF{}",         // BOM (nlohmann skips it)
                           "[1234567890123456789]",  // 19 digits (nlohmann: unsigned)
                           "{\"a\": 1, \"a\": 2}",   // duplicate key (nlohmann: last wins)
                           "[\"caf\xC3\xA9\"]",      // non-ASCII
                           "[1e400]",
                           "[1 2]",
                           "[1,]",
                           "[01]",
                           "[-]",
                           "[1.]",
                           "[.5]",
                           "[1e]",
                           "{\"a\" 1}",
                           "{\"a\": 1,}",
                           "[1] x",
                           "",
                           "   ",
                           "[tru]",
                           "{\"a\": [1, 2}",
                           "[\"a\tb\"]",
                           "[1, \"x\" 2]"}) {
    EXPECT_FALSE(flat.Parse(text)) << text;
  }
  // Duplicate keys among many (the sorted check).
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  const std::string distinct = many + "\"z\": 0}", duplicate = many + "\"k17\": 0}";
  EXPECT_TRUE(flat.Parse(distinct));
  EXPECT_FALSE(flat.Parse(duplicate));
}

// A DAG file the fast path declines (an escaped key) loads exactly as the same file it takes.
TEST(FlatJson, DagLoaderGivesTheSameWorkloadEitherWay) {
  const std::string body =
      "\"dags\": [{\"name\": \"d\", \"parents\": [[], [0]], \"stages\": ["
      "{\"num_tasks\": 2, \"first_wave\": {\"5\": [1.5, 2, 2]}, \"rest_wave\": {\"5\": [3]},"
      " \"fresh_durations\": {\"5\": [2]}},"
      "{\"num_tasks\": 1, \"first_wave\": {\"5\": [0.25]}, \"rest_wave\": {\"5\": []},"
      " \"fresh_durations\": {\"5\": []}}]}]}";
  auto fast =
      LoadDagWorkload(testing::WriteTempFile("flat_fast.json", "{\"schedkit_dag\": 1, " + body));
  auto slow = LoadDagWorkload(testing::WriteTempFile(
      "flat_slow.json", "{\"schedkit_dag\": 1, \"note\": \"\\u0041\", " + body));
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  ASSERT_EQ(fast->dags.size(), 1u);
  const DagStageProfile& a = fast->dags[0].stages[0];
  const DagStageProfile& b = slow->dags[0].stages[0];
  EXPECT_EQ(a.first_wave[0].ms, (std::vector<double>{1.5, 2}));  // One 2 cancelled by fresh.
  EXPECT_EQ(a.first_wave[0].ms, b.first_wave[0].ms);
  EXPECT_EQ(a.rough_duration_ms, b.rough_duration_ms);
  EXPECT_EQ(fast->dags[0].parents, slow->dags[0].parents);
}

}  // namespace
}  // namespace schedkit
