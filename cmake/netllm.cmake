# NetLLM for DAG job scheduling (python/schedkit_netllm, docs/netllm.md): a pure-Python package on
# the `schedkit` module (build/python) and Debian's python3-torch. Its unittest runs real
# `schedkit dag collect` pools and real DagEnv episodes at tiny model sizes (seconds).
if(NOT SCHEDKIT_BUILD_PYTHON OR NOT SCHEDKIT_BUILD_TESTS)
  return()
endif()
add_test(NAME netllm_python
  COMMAND ${Python3_EXECUTABLE} -m unittest -v test_netllm
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/netllm)
set_tests_properties(netllm_python PROPERTIES
  ENVIRONMENT "SCHEDKIT_CLI=$<TARGET_FILE:schedkit>;PYTHONPATH=${CMAKE_BINARY_DIR}/python:${PROJECT_SOURCE_DIR}/python"
  TIMEOUT 300)
# It imports build/python's module: in a sanitizer build, with the runtime preloaded.
set_property(TEST netllm_python APPEND PROPERTY ENVIRONMENT ${SCHEDKIT_SANITIZER_PYTHON_ENV})
