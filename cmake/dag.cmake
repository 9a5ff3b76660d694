# Spark DAG scheduling (issue 5): src/dag is globbed into schedkit_core; this adds Eigen (the
# Decima model, header only) and the benchmark (docs/performance.md).
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
# PUBLIC: the tests include src/dag/decima_model.h.
target_link_libraries(schedkit_core PUBLIC Eigen3::Eigen)
if(SCHEDKIT_BUILD_BENCHMARKS)
  add_executable(schedkit_dag_bench ${PROJECT_SOURCE_DIR}/bench/dag_bench.cc)
  target_link_libraries(schedkit_dag_bench PRIVATE schedkit_core)
  target_include_directories(schedkit_dag_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(schedkit_dag_bench PRIVATE SCHEDKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                             SCHEDKIT_CLI="$<TARGET_FILE:schedkit>")
  add_dependencies(schedkit_dag_bench schedkit)  # `process` runs it.
endif()
# The golden values of DecimaModelTest come from an independent PyTorch implementation; this
# re-runs it (when /usr/bin/python3 can import torch, else skipped) so they cannot go stale.
if(SCHEDKIT_BUILD_TESTS)
  add_test(NAME dag_decima_reference
    COMMAND /usr/bin/python3 tests/dag/decima_reference.py data/decima/decima_tpch.json
            tests/dag/decima_cases.json --check tests/dag/decima_golden.json
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(dag_decima_reference PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
