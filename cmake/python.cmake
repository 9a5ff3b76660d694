# The `schedkit` Python module (python/bindings, docs/learning.md): pybind11 against Debian's
# /usr/bin/python3, built into build/python/ (PYTHONPATH=build/python). Its tests and the
# REINFORCE example's smoke run are ctest tests run with the same interpreter.
if(NOT SCHEDKIT_BUILD_PYTHON)
  return()
endif()
# Another python3 may come first on PATH: the module must match the interpreter whose
# site-packages hold Debian's numpy and torch.
set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the bindings and their tests")
set(PYBIND11_FINDPYTHON ON)
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
find_package(pybind11 REQUIRED CONFIG)

# The static core goes into a shared module: it must be position-independent.
set_target_properties(schedkit_core PROPERTIES POSITION_INDEPENDENT_CODE ON)
set(SCHEDKIT_PYTHON_BINDINGS ${PROJECT_SOURCE_DIR}/python/bindings/schedkit_module.cc
    ${PROJECT_SOURCE_DIR}/python/bindings/simulate.cc
    ${PROJECT_SOURCE_DIR}/python/bindings/policy_bridge.cc)
pybind11_add_module(schedkit_python MODULE ${SCHEDKIT_PYTHON_BINDINGS})
target_link_libraries(schedkit_python PRIVATE schedkit_core)
target_include_directories(schedkit_python PRIVATE ${PROJECT_SOURCE_DIR}/src)  # metrics/summary_json.h
set_target_properties(schedkit_python PROPERTIES
  OUTPUT_NAME schedkit
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/python)

# Python policies in the CLI (docs/write-a-policy.md, "In Python"): the interpreter embedded
# in a library of its own, libschedkit_pyembed.so beside the executable, that `schedkit`
# opens only when a Python policy is asked for (LoadPythonPolicy, schedkit/plugin.h). Like
# a plugin it links no copy of the core library (the executable exports it) and carries
# the plugin ABI symbol; unlike the extension module it links libpython, and builds the
# same bindings as `import schedkit`'s built-in module.
find_package(Python3 REQUIRED COMPONENTS Development.Embed)
add_library(schedkit_pyembed MODULE ${PROJECT_SOURCE_DIR}/python/embed/embed.cc
            ${SCHEDKIT_PYTHON_BINDINGS})
target_compile_definitions(schedkit_pyembed PRIVATE SCHEDKIT_EMBEDDED
  SCHEDKIT_PYTHON_EXECUTABLE="${Python3_EXECUTABLE}")
target_include_directories(schedkit_pyembed PRIVATE ${PROJECT_SOURCE_DIR}/include
  ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/python/bindings ${CMAKE_BINARY_DIR}/generated/include)
# Python3::Python explicitly: it did not exist yet when pybind11::embed was defined.
target_link_libraries(schedkit_pyembed PRIVATE pybind11::embed Python3::Python nlohmann_json::nlohmann_json)
set_target_properties(schedkit_pyembed PROPERTIES
  OUTPUT_NAME schedkit_pyembed
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_dependencies(schedkit_pyembed schedkit_plugin_abi)
# `schedkit` looks for it in ../lib/schedkit/ of an installed prefix.
install(TARGETS schedkit_pyembed LIBRARY DESTINATION lib/schedkit)
add_dependencies(schedkit schedkit_pyembed)

if(SCHEDKIT_BUILD_TESTS)
  # In a sanitizer build, with the runtime preloaded (cmake/sanitize.cmake).
  set(SCHEDKIT_PY_ENV "PYTHONPATH=${CMAKE_BINARY_DIR}/python" ${SCHEDKIT_SANITIZER_PYTHON_ENV})
  add_test(NAME python_envs
    COMMAND ${Python3_EXECUTABLE} -m unittest -v test_envs
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/python)
  add_test(NAME python_reinforce_smoke
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/reinforce.py --env cluster --smoke)
  add_test(NAME python_reinforce_smoke_dag
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/reinforce.py --env dag --smoke)
  set_tests_properties(python_envs python_reinforce_smoke python_reinforce_smoke_dag PROPERTIES
    ENVIRONMENT "${SCHEDKIT_PY_ENV}" TIMEOUT 300)
  # schedkit.simulate and Python keys against the CLI's outputs (docs/write-a-policy.md).
  add_test(NAME python_simulate
    COMMAND ${Python3_EXECUTABLE} -m unittest -v test_simulate
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/python)
  set_tests_properties(python_simulate PROPERTIES
    ENVIRONMENT "${SCHEDKIT_PY_ENV};SCHEDKIT_CLI=$<TARGET_FILE:schedkit>" TIMEOUT 300)
  # Python policies in simulate, compare, sweep and serve through the embedded interpreter,
  # against the built-ins with the same rules (docs/write-a-policy.md).
  add_test(NAME python_policies
    COMMAND ${Python3_EXECUTABLE} -m unittest -v test_python_policies
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/python)
  set_tests_properties(python_policies PROPERTIES TIMEOUT 300 ENVIRONMENT
    "${SCHEDKIT_PY_ENV};SCHEDKIT_CLI=$<TARGET_FILE:schedkit>;SCHEDKIT_WITH_RUNTIME=$<BOOL:${SCHEDKIT_BUILD_RUNTIME}>")
  # ctest builds nothing: make `ninja schedkit_tests` bring the module along.
  add_dependencies(schedkit_tests schedkit_python)
endif()
