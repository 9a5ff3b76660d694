// Shared by the DAG tests: the shipped TPC-H workload, loaded once per test binary.
#ifndef SCHEDKIT_TESTS_DAG_DAG_TEST_UTIL_H_
#define SCHEDKIT_TESTS_DAG_DAG_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "schedkit/dag.h"

namespace schedkit::testing {

inline const DagWorkload& TpchWorkload() {
  static const DagWorkload* w = [] {
    auto r = LoadDagWorkload(std::string(SCHEDKIT_SOURCE_DIR) + "/data/tpch/tpch.json");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return new DagWorkload(std::move(*r));
  }();
  return *w;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_DAG_DAG_TEST_UTIL_H_
