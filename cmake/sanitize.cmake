# Sanitizer and fuzzing builds (docs/fuzzing.md). Included before any target is defined,
# so that every object of the build, the core library included, is instrumented.
#
#   -DSCHEDKIT_SANITIZE=address,undefined   AddressSanitizer + UndefinedBehaviorSanitizer
#                                           (any list -fsanitize= takes; GCC or Clang).
#                                           A report aborts the process: ctest fails.
#   -DSCHEDKIT_FUZZ=ON                      Clang only: builds the fuzz targets with
#                                           libFuzzer (cmake/fuzz.cmake); implies
#                                           SCHEDKIT_SANITIZE=address,undefined unless set.
set(SCHEDKIT_SANITIZE "" CACHE STRING
    "Sanitizers for every target, as -fsanitize= takes them (e.g. address,undefined)")
option(SCHEDKIT_FUZZ "Build the fuzz targets with libFuzzer (Clang)" OFF)

if(SCHEDKIT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SCHEDKIT_FUZZ=ON needs Clang's libFuzzer: configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ (Debian: clang, libclang-rt-14-dev)")
  endif()
  if(SCHEDKIT_SANITIZE STREQUAL "")
    set(SCHEDKIT_SANITIZE "address,undefined")
  endif()
  # Coverage feedback for the fuzzer in every object; the fuzz targets link libFuzzer.
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()

if(NOT SCHEDKIT_SANITIZE STREQUAL "")
  # Every report is fatal (no recovery), so a sanitizer finding fails the test that hit it.
  add_compile_options(-fsanitize=${SCHEDKIT_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${SCHEDKIT_SANITIZE} -fno-sanitize-recover=all)
endif()

# Python tests that import the instrumented `schedkit` module (cmake/python.cmake) run
# /usr/bin/python3, which is not instrumented: the sanitizer runtime must be preloaded
# before the module loads, and LeakSanitizer is off for them (the interpreter keeps its
# memory at exit by design). Tests that only run build/schedkit need nothing: executables
# carry their runtime.
set(SCHEDKIT_SANITIZER_PYTHON_ENV "")
if(SCHEDKIT_SANITIZE MATCHES "address")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(runtime_library libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(runtime_library libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${runtime_library}
                  OUTPUT_VARIABLE runtime_path OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${runtime_path}")
    message(FATAL_ERROR "SCHEDKIT_SANITIZE: cannot find ${runtime_library} to preload into "
                        "the Python tests (${CMAKE_CXX_COMPILER} -print-file-name)")
  endif()
  set(SCHEDKIT_SANITIZER_PYTHON_ENV "LD_PRELOAD=${runtime_path};ASAN_OPTIONS=detect_leaks=0")
endif()

