#include "schedkit/registry.h"
#include "schedkit/metrics.h"

#include <gtest/gtest.h>

namespace schedkit {
namespace {

TEST(Registry, ListsEveryBuiltin) {
  const Registries& r = BuiltinRegistries();
  for (const char* name : {"fifo", "sjf", "srtf", "srsf", "las", "tiresias"}) {
    EXPECT_NE(r.policies.Find(name), nullptr) << name;
  }
  for (const char* name : {"yarn", "gpu-count", "best-fit", "first-fit"}) {
    EXPECT_NE(r.placements.Find(name), nullptr) << name;
  }
  EXPECT_NE(r.admissions.Find("accept-all"), nullptr);
  EXPECT_NE(r.admissions.Find("load-based"), nullptr);
  for (const auto& e : r.policies.entries()) EXPECT_FALSE(e.description.empty()) << e.name;
}

TEST(Registry, RefusesDuplicateNames) {
  Registries r;
  ASSERT_TRUE(RegisterBuiltins(&r).ok());
  Status st = RegisterBuiltins(&r);
  EXPECT_EQ(st.code(), Status::Code::kAlreadyExists);
  EXPECT_NE(st.message().find("fifo"), std::string::npos);
}

PolicyRequest Req(std::string policy, std::map<std::string, std::string> options) {
  PolicyRequest r;
  r.policy = std::move(policy);
  r.options = std::move(options);
  return r;
}

TEST(Registry, ErrorsNameTheBadPolicyModuleOrOption) {
  auto unknown = MakePolicy(Req("nope", {}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown policy 'nope'"), std::string::npos);

  auto bad_key = MakePolicy(Req("tiresias", {{"threshold", "1"}}));
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("unknown option 'threshold'"), std::string::npos)
      << bad_key.status().message();

  auto bad_type = MakePolicy(Req("las", {{"quantum_s", "soon"}}));
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.status().message().find("'quantum_s': 'soon' is not a finite number"),
            std::string::npos);
  EXPECT_FALSE(MakePolicy(Req("las", {{"quantum_s", "nan"}})).ok());
  EXPECT_FALSE(MakePolicy(Req("las", {{"quantum_s", "inf"}})).ok());

  auto bad_value = MakePolicy(Req("tiresias", {{"thresholds", "7200:3250"}}));
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.status().message().find("ascending"), std::string::npos);

  PolicyRequest bad_placement = Req("fifo", {});
  bad_placement.placement = "random";
  auto p = MakePolicy(bad_placement);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("unknown placement 'random'"), std::string::npos);

  auto bad_admission_opt = MakePolicy(Req("fifo", {{"admission.threshold", "2"}}));
  ASSERT_FALSE(bad_admission_opt.ok());  // accept-all has no options.
  EXPECT_NE(bad_admission_opt.status().message().find("admission accept-all"), std::string::npos);
}

// Issue 13: a module handed to a policy that does not use it was silently dropped. Over
// the whole registry: a slot a policy takes accepts a module; a slot it does not take has
// no default and refuses a module and its options, naming the policy.
TEST(Registry, EveryPolicyTakesExactlyTheModulesItSays) {
  struct Slot {
    const char* kind;
    bool PolicyRegistry::Entry::*taken;
    std::string PolicyRegistry::Entry::*fallback;
    std::string PolicyRequest::*named;
    const char* module;  // A registered module of that kind.
  };
  const Slot slots[] = {
      {"placement", &PolicyRegistry::Entry::takes_placement,
       &PolicyRegistry::Entry::default_placement, &PolicyRequest::placement, "best-fit"},
      {"admission", &PolicyRegistry::Entry::takes_admission,
       &PolicyRegistry::Entry::default_admission, &PolicyRequest::admission, "load-based"}};
  int refusing = 0;
  for (const auto& entry : BuiltinRegistries().policies.entries()) {
    for (const Slot& slot : slots) {
      PolicyRequest named = Req(entry.name, {});
      named.*slot.named = slot.module;
      auto made = MakePolicy(named);
      if (entry.*slot.taken) {
        EXPECT_TRUE(made.ok()) << entry.name << " " << slot.kind << ": " << made.status().message();
        continue;
      }
      ++refusing;
      EXPECT_TRUE((entry.*slot.fallback).empty()) << entry.name << " " << slot.kind;
      ASSERT_FALSE(made.ok()) << entry.name << " " << slot.kind;
      EXPECT_NE(made.status().message().find("policy '" + entry.name + "' takes no " + slot.kind),
                std::string::npos)
          << made.status().message();
      auto option = MakePolicy(Req(entry.name, {{std::string(slot.kind) + ".x", "1"}}));
      ASSERT_FALSE(option.ok()) << entry.name << " " << slot.kind;
      std::string field;
      EXPECT_FALSE(CheckModulesTaken(entry, Req(entry.name, {{std::string(slot.kind) + ".x", "1"}}),
                                     &field)
                       .ok());
      EXPECT_EQ(field, std::string(slot.kind) + ".x");
    }
  }
  EXPECT_EQ(refusing, 10);  // admission: muri-s, muri-l, themis, lucid, antman, gavel,
                            // optimus, dynamic; placement: antman, dynamic (its candidates
                            // name theirs).
}

TEST(Percentile, NearestRankAndMuriIndex) {
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(i);
  EXPECT_EQ(Percentile(v, 0.5, PercentileRule::kNearestRank), 5);
  EXPECT_EQ(Percentile(v, 0.5, PercentileRule::kMuriIndex), 6);
  EXPECT_EQ(Percentile(v, 0.99, PercentileRule::kNearestRank), 10);
  EXPECT_EQ(Percentile(v, 0.99, PercentileRule::kMuriIndex), 10);
  EXPECT_EQ(Percentile({}, 0.99, PercentileRule::kMuriIndex), 0);
}

}  // namespace
}  // namespace schedkit
