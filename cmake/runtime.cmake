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

# The runtime's objects, position-independent: in the static library that the runtime's
# tests and benchmark link with the core, and in the module below.
file(GLOB SCHEDKIT_RUNTIME_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/runtime/*.cc)
add_library(schedkit_runtime_objects OBJECT ${SCHEDKIT_RUNTIME_SOURCES} ${SCHEDKIT_PROTO_SRCS})
set_target_properties(schedkit_runtime_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_include_directories(schedkit_runtime_objects
  PUBLIC ${PROJECT_SOURCE_DIR}/include ${SCHEDKIT_PROTO_OUT}
  PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(schedkit_runtime_objects PUBLIC nlohmann_json::nlohmann_json
                      PkgConfig::SCHEDKIT_GRPC PkgConfig::SCHEDKIT_SQLITE Threads::Threads)
# Generated protobuf code is not ours to warn about.
set_source_files_properties(${SCHEDKIT_PROTO_SRCS} PROPERTIES COMPILE_OPTIONS "-w")
add_library(schedkit_runtime STATIC)
target_link_libraries(schedkit_runtime PUBLIC schedkit_runtime_objects schedkit_core)

# `schedkit serve` and its client commands (cli/runtime_commands.cc) with the runtime and
# gRPC in a library of their own, libschedkit_runtime_commands.so beside the executable,
# which opens it only for those commands (registry/companion.h): linked into the executable,
# gRPC, protobuf and SQLite cost every other command ~16 ms of start-up (docs/performance.md,
# "Start-up"). Like a plugin it links no copy of the core library (the executable exports it)
# and carries the plugin ABI symbol.
add_library(schedkit_runtime_commands MODULE ${PROJECT_SOURCE_DIR}/cli/runtime_commands.cc)
target_link_libraries(schedkit_runtime_commands PRIVATE schedkit_runtime_objects CLI11::CLI11)
target_include_directories(schedkit_runtime_commands PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${CMAKE_BINARY_DIR}/generated/include)
set_target_properties(schedkit_runtime_commands PROPERTIES
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_dependencies(schedkit_runtime_commands schedkit_plugin_abi)
# `schedkit` looks for it in ../lib/schedkit/ of an installed prefix.
install(TARGETS schedkit_runtime_commands LIBRARY DESTINATION lib/schedkit)
add_dependencies(schedkit schedkit_runtime_commands)
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
