# Spark DAG scheduling (issue 5): src/dag is globbed into schedkit_core; this adds the
# benchmark (docs/performance.md).
if(SCHEDKIT_BUILD_BENCHMARKS)
  add_executable(schedkit_dag_bench ${PROJECT_SOURCE_DIR}/bench/dag_bench.cc)
  target_link_libraries(schedkit_dag_bench PRIVATE schedkit_core)
  target_compile_definitions(schedkit_dag_bench PRIVATE SCHEDKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
