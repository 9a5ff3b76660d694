// Helpers shared by the allocation policies: the pairs' lookup and gain, and per-job seeds.
#include "gavel/lp_policies.h"

namespace schedkit::gavel {

PairIndex::PairIndex(const AllocationProblem& p) {
  for (int i = 0; i < static_cast<int>(p.pairs.size()); ++i) {
    const JobPair& pair = p.pairs[i];
    index_.emplace(std::make_tuple(std::min(pair.a, pair.b), std::max(pair.a, pair.b), pair.type), i);
  }
}

int PairIndex::Find(int a, int b, int k) const {
  const auto it = index_.find({std::min(a, b), std::max(a, b), k});
  return it == index_.end() ? -1 : it->second;
}

bool PairIndex::Listed(int a, int b) const {
  const auto it = index_.lower_bound({std::min(a, b), std::max(a, b), 0});
  return it != index_.end() && std::get<0>(it->first) == std::min(a, b) &&
         std::get<1>(it->first) == std::max(a, b);
}

double NormalisedThroughput(const AllocationProblem& p, const JobPair& pair) {
  auto gain = [&](int j, double together) {
    const double alone = p.jobs[j].throughput[pair.type];
    return alone > 0 ? together / alone : 0.0;
  };
  return gain(pair.a, pair.throughput_a) + gain(pair.b, pair.throughput_b);
}

uint64_t SeedFor(uint64_t seed, std::string_view id) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the id.
  for (unsigned char c : id) h = (h ^ c) * 1099511628211ull;
  return seed ^ h;
}

}  // namespace schedkit::gavel
