# Adaptive jobs (python/schedkit_adapt, docs/adapt.md): a pure-Python package on Debian's
# python3-torch and python3-sklearn (its digits data). Its tests are one ctest run with the same
# interpreter as the bindings; they need no build output.
if(NOT SCHEDKIT_BUILD_TESTS)
  return()
endif()
add_test(NAME adapt_python
  COMMAND /usr/bin/python3 -m unittest -v test_adapt
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/adapt)
set_tests_properties(adapt_python PROPERTIES
  ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;OMP_NUM_THREADS=1" TIMEOUT 900)
# The job side of the runtime tie (schedkit_adapt.job, examples/adaptive_training.py, the shipped
# agent): seconds, apart from the long test above. The service side is runtime.RuntimeAdaptive.*.
add_test(NAME adapt_job_python
  COMMAND /usr/bin/python3 -m unittest -v test_job
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/adapt)
set_tests_properties(adapt_job_python PROPERTIES
  ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;OMP_NUM_THREADS=1" TIMEOUT 300)
