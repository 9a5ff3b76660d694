# The real-cluster runtime (issue 6, docs/runtime.md): `schedkit serve` and its client
# commands, a gRPC service over a SQLite store driving local processes or Slurm.
# Debian: libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev libsqlite3-dev.
if(NOT SCHEDKIT_BUILD_RUNTIME)
  return()
endif()

find_package(PkgConfig REQUIRED)
pkg_check_modules(SCHEDKIT_GRPC REQUIRED IMPORTED_TARGET grpc++ protobuf)
pkg_check_modules(SCHEDKIT_SQLITE REQUIRED IMPORTED_TARGET sqlite3)
find_program(SCHEDKIT_PROTOC protoc REQUIRED)
find_program(SCHEDKIT_GRPC_PLUGIN grpc_cpp_plugin REQUIRED)

set(SCHEDKIT_PROTO_DIR ${PROJECT_SOURCE_DIR}/proto)
set(SCHEDKIT_PROTO_OUT ${CMAKE_BINARY_DIR}/proto_gen)
set(SCHEDKIT_PROTO ${SCHEDKIT_PROTO_DIR}/schedkit/v1/scheduler.proto)
set(SCHEDKIT_PROTO_SRCS
  ${SCHEDKIT_PROTO_OUT}/schedkit/v1/scheduler.pb.cc
  ${SCHEDKIT_PROTO_OUT}/schedkit/v1/scheduler.grpc.pb.cc)
file(MAKE_DIRECTORY ${SCHEDKIT_PROTO_OUT})
add_custom_command(
  OUTPUT ${SCHEDKIT_PROTO_SRCS}
         ${SCHEDKIT_PROTO_OUT}/schedkit/v1/scheduler.pb.h
         ${SCHEDKIT_PROTO_OUT}/schedkit/v1/scheduler.grpc.pb.h
  COMMAND ${SCHEDKIT_PROTOC} -I ${SCHEDKIT_PROTO_DIR} --cpp_out=${SCHEDKIT_PROTO_OUT}
          --grpc_out=${SCHEDKIT_PROTO_OUT} --plugin=protoc-gen-grpc=${SCHEDKIT_GRPC_PLUGIN}
          ${SCHEDKIT_PROTO}
  DEPENDS ${SCHEDKIT_PROTO}
  COMMENT "protoc scheduler.proto")

file(GLOB SCHEDKIT_RUNTIME_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/runtime/*.cc)
add_library(schedkit_runtime STATIC ${SCHEDKIT_RUNTIME_SOURCES} ${SCHEDKIT_PROTO_SRCS})
target_include_directories(schedkit_runtime
  PUBLIC ${PROJECT_SOURCE_DIR}/include ${SCHEDKIT_PROTO_OUT}
  PRIVATE ${PROJECT_SOURCE_DIR}/src)
# Generated protobuf code is not ours to warn about.
set_source_files_properties(${SCHEDKIT_PROTO_SRCS} PROPERTIES COMPILE_OPTIONS "-w")
target_link_libraries(schedkit_runtime PUBLIC schedkit_core PkgConfig::SCHEDKIT_GRPC
                      PkgConfig::SCHEDKIT_SQLITE Threads::Threads)

target_link_libraries(schedkit PRIVATE schedkit_runtime)
target_compile_definitions(schedkit PRIVATE SCHEDKIT_WITH_RUNTIME=1)

if(SCHEDKIT_BUILD_TESTS)
  # Integration tests: the real `schedkit serve`, real processes, a real Slurm cluster.
  # Not *_test.cc, so they stay out of schedkit_tests (which builds without the runtime).
  add_executable(schedkit_runtime_tests ${PROJECT_SOURCE_DIR}/tests/runtime/service_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/slurm_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/engine_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/colocation_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/reliability_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/adaptive_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/elastic_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/sharing_itest.cc
                                        ${PROJECT_SOURCE_DIR}/tests/runtime/types_itest.cc)
  target_link_libraries(schedkit_runtime_tests PRIVATE schedkit_runtime GTest::gtest GTest::gtest_main)
  target_include_directories(schedkit_runtime_tests PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(schedkit_runtime_tests PRIVATE
    SCHEDKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SCHEDKIT_CLI="$<TARGET_FILE:schedkit>")
  add_dependencies(schedkit_runtime_tests schedkit)
  gtest_discover_tests(schedkit_runtime_tests TEST_PREFIX "runtime." DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 120)
endif()

if(SCHEDKIT_BUILD_BENCHMARKS)
  add_executable(schedkit_runtime_bench ${PROJECT_SOURCE_DIR}/bench/runtime_bench.cc)
  target_link_libraries(schedkit_runtime_bench PRIVATE schedkit_runtime)
  target_include_directories(schedkit_runtime_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
endif()
