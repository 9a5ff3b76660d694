# Gavel's allocation policies (src/gavel, docs/gavel.md): the independent LP check of
# `schedkit gavel allocate` with scipy (python3-scipy) and the solve-time benchmark.
if(SCHEDKIT_BUILD_TESTS)
  add_test(NAME gavel_linprog_python
    COMMAND /usr/bin/python3 -m unittest -v test_gavel_linprog
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/gavel)
  set_tests_properties(gavel_linprog_python PROPERTIES
    ENVIRONMENT "SCHEDKIT_CLI=$<TARGET_FILE:schedkit>" TIMEOUT 300)
endif()
if(SCHEDKIT_BUILD_BENCHMARKS)
  add_executable(schedkit_gavel_bench ${PROJECT_SOURCE_DIR}/bench/gavel_bench.cc)
  target_link_libraries(schedkit_gavel_bench PRIVATE schedkit_core)
  target_include_directories(schedkit_gavel_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
endif()
# scripts/gavel_window.py (docs/gavel.md, "Results"): Gavel's windowed mean JCT over seeds.
if(SCHEDKIT_BUILD_TESTS)
  add_test(NAME gavel_window_python
    COMMAND /usr/bin/python3 -m unittest -v test_gavel_window
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/gavel)
  set_tests_properties(gavel_window_python PROPERTIES
    ENVIRONMENT "SCHEDKIT_CLI=$<TARGET_FILE:schedkit>" TIMEOUT 120)
endif()
