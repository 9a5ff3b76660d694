# Lucid / Helios reproduction (docs/lucid.md): its benchmark. The library code lives in
# src/lucid/ and is globbed into schedkit_core.
if(SCHEDKIT_BUILD_BENCHMARKS)
  add_executable(schedkit_lucid_bench ${PROJECT_SOURCE_DIR}/bench/lucid_bench.cc)
  target_link_libraries(schedkit_lucid_bench PRIVATE schedkit_core)
  target_compile_definitions(schedkit_lucid_bench PRIVATE
    SCHEDKIT_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
endif()
