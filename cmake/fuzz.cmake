# Fuzz targets (docs/fuzzing.md): one per family of user input, each a
# fuzz/<name>_fuzz.cc defining LLVMFuzzerTestOneInput, with its seed corpus in
# fuzz/corpus/<name>/.
#  - Default build: each target links fuzz/corpus_main.cc, and the test fuzz_corpus.<name>
#    feeds it every seed, so the targets compile and run in the normal suite.
#  - SCHEDKIT_FUZZ=ON (Clang, cmake/sanitize.cmake): each target links libFuzzer, and the
#    test fuzz.<name> fuzzes it for SCHEDKIT_FUZZ_SECONDS from its seeds; new inputs go to
#    <build>/fuzz/<name>/, never into the source tree. A crash, a hang past 10 s on one
#    input or a sanitizer report fails the test.
if(NOT SCHEDKIT_BUILD_TESTS AND NOT SCHEDKIT_FUZZ)
  return()
endif()

set(SCHEDKIT_FUZZ_SECONDS 10 CACHE STRING "How long the ctest fuzz.<name> runs fuzz each target")
set(SCHEDKIT_FUZZ_TARGETS trace cluster_spec placement side_files dag sweep names policy_options)
# The gRPC requests of `schedkit serve`: only with the runtime (cmake/runtime.cmake, before).
if(TARGET schedkit_runtime)
  list(APPEND SCHEDKIT_FUZZ_TARGETS grpc_request)
endif()

foreach(name ${SCHEDKIT_FUZZ_TARGETS})
  set(target schedkit_fuzz_${name})
  set(corpus ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name})
  if(SCHEDKIT_FUZZ)
    add_executable(${target} ${PROJECT_SOURCE_DIR}/fuzz/${name}_fuzz.cc)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  else()
    add_executable(${target} ${PROJECT_SOURCE_DIR}/fuzz/${name}_fuzz.cc
                             ${PROJECT_SOURCE_DIR}/fuzz/corpus_main.cc)
  endif()
  target_link_libraries(${target} PRIVATE schedkit_core)
  if(name STREQUAL "grpc_request")
    target_link_libraries(${target} PRIVATE schedkit_runtime)
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(${target} PRIVATE SCHEDKIT_FUZZ_DIR="${PROJECT_SOURCE_DIR}/fuzz")
  if(SCHEDKIT_FUZZ)
    set(work ${CMAKE_BINARY_DIR}/fuzz/${name})
    file(MAKE_DIRECTORY ${work})
    add_test(NAME fuzz.${name}
             COMMAND ${target} -max_total_time=${SCHEDKIT_FUZZ_SECONDS} -timeout=10
                     -rss_limit_mb=4096 -print_final_stats=1 ${work} ${corpus})
    math(EXPR fuzz_timeout "${SCHEDKIT_FUZZ_SECONDS} + 120")
    set_tests_properties(fuzz.${name} PROPERTIES TIMEOUT ${fuzz_timeout})
  else()
    add_test(NAME fuzz_corpus.${name} COMMAND ${target} ${corpus})
    set_tests_properties(fuzz_corpus.${name} PROPERTIES TIMEOUT 60)
  endif()
endforeach()
