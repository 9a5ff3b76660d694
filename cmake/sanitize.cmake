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
