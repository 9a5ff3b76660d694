// The learning-environment contract: Gym's reset/step, offered by every engine that can be
// driven one decision at a time (the Spark DAG simulator and the GPU-cluster simulator), in
// C++ and, through the Python bindings, as NumPy arrays.
//
// An environment owns one simulation. Reset(seed) starts a new episode and returns the first
// observation; Step(action) applies one decision and runs the simulation to the next decision
// point. Observations are named dense arrays so that bindings and experience pools handle every
// environment alike; each environment documents its fields and its action (docs/learning.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "schedkit/status.h"

namespace schedkit {

// A dense, row-major array: one field of an observation.
struct Tensor {
  std::vector<int64_t> shape;
  std::variant<std::vector<double>, std::vector<int64_t>> values;
};

using Observation = std::map<std::string, Tensor>;

// An action is a short tuple of integers whose meaning the environment documents, e.g.
// {stage index or -1, number of executors} for DAG jobs, {queued job index or -1} for clusters.
using Action = std::vector<int64_t>;

struct StepResult {
  Observation observation;
  double reward = 0;
  bool terminated = false;  // the episode is over: every job has completed
  bool truncated = false;   // stopped early, e.g. by a step limit
  std::map<std::string, double> info;
};

class Environment {
 public:
  virtual ~Environment() = default;

  // A short stable name ("dag", "cluster").
  virtual const char* Name() const = 0;

  // Starts a new episode; the same seed gives the same episode.
  virtual Observation Reset(uint64_t seed) = 0;

  // Applies `action` at the current decision point and advances to the next one.
  // REQUIRES: Reset was called and the last step did not end the episode.
  // An action that is not legal now is an InvalidArgument and changes nothing.
  virtual Result<StepResult> Step(const Action& action) = 0;
};

}  // namespace schedkit
