# Gavel's allocation policies (src/gavel, docs/gavel.md): the independent LP check of
# `schedkit gavel allocate` with scipy (python3-scipy), the windowed mean JCT of Gavel's
# results (scripts/gavel_window.py), the makespan summary (scripts/gavel_makespan.py), and the
# solve-time benchmark.
if(SCHEDKIT_BUILD_TESTS)
  foreach(check linprog window makespan)
    add_test(NAME gavel_${check}_python
      COMMAND /usr/bin/python3 -m unittest -v test_gavel_${check}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/gavel)
    set_tests_properties(gavel_${check}_python PROPERTIES
      ENVIRONMENT "SCHEDKIT_CLI=$<TARGET_FILE:schedkit>" TIMEOUT 300)
  endforeach()
endif()
if(SCHEDKIT_BUILD_BENCHMARKS)
  add_executable(schedkit_gavel_bench ${PROJECT_SOURCE_DIR}/bench/gavel_bench.cc)
  target_link_libraries(schedkit_gavel_bench PRIVATE schedkit_core)
  target_include_directories(schedkit_gavel_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
endif()
