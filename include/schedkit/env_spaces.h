// Descriptions of the learning environments' observation and action spaces, field by field:
// the same text as docs/learning.md, offered to code (the Python bindings' `observation_space`
// and `action_space`, and the tests that check every observation against its description).
#ifndef SCHEDKIT_ENV_SPACES_H_
#define SCHEDKIT_ENV_SPACES_H_

#include <string>
#include <vector>

#include "schedkit/status.h"

namespace schedkit {

struct FieldDoc {
  std::string name;
  std::string dtype;    // "float64" or "int64".
  std::string shape;    // Symbolic, e.g. "[n, 3]", "[Q]", "[]" (a scalar).
  std::string meaning;  // One line.
};

struct SpaceDoc {
  std::vector<FieldDoc> observation;  // Every field of every observation, in name order.
  std::vector<FieldDoc> action;       // The action's integers, in order.
  std::string symbols;                // What the shape symbols stand for.
  std::string reward;                 // One line.
};

// "dag" or "cluster"; NotFound otherwise.
Result<SpaceDoc> DescribeEnvironment(const std::string& name);

}  // namespace schedkit

#endif  // SCHEDKIT_ENV_SPACES_H_
