# Predictors (src/predict, docs/predict.md): XGBoost's C library (Debian's libxgboost-dev).
# Only src/predict/stump_booster.cc includes <xgboost/c_api.h>; no XGBoost type reaches a header.
# The library is opened (dlopen) the first time a booster is made, not linked: linked, it and
# its OpenMP runtime cost every `schedkit` process ~6 ms of start-up (docs/performance.md).
find_package(PkgConfig REQUIRED)
pkg_check_modules(XGBOOST REQUIRED IMPORTED_TARGET xgboost)
# The name to open: the library's SONAME (libxgboost.so.0), which the runtime package provides
# without the -dev symlink.
find_library(SCHEDKIT_XGBOOST_PATH NAMES xgboost HINTS ${XGBOOST_LIBRARY_DIRS} REQUIRED)
execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${SCHEDKIT_XGBOOST_PATH}
                OUTPUT_VARIABLE SCHEDKIT_XGBOOST_DYNAMIC RESULT_VARIABLE SCHEDKIT_XGBOOST_OBJDUMP)
string(REGEX MATCH "SONAME +([^\n ]+)" SCHEDKIT_XGBOOST_SONAME_LINE "${SCHEDKIT_XGBOOST_DYNAMIC}")
if(NOT SCHEDKIT_XGBOOST_OBJDUMP EQUAL 0 OR NOT CMAKE_MATCH_1)
  message(FATAL_ERROR "cannot read the SONAME of ${SCHEDKIT_XGBOOST_PATH} with ${CMAKE_OBJDUMP}")
endif()
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/predict/stump_booster.cc PROPERTIES
  COMPILE_DEFINITIONS SCHEDKIT_XGBOOST_LIBRARY="${CMAKE_MATCH_1}")
target_include_directories(schedkit_core PRIVATE ${XGBOOST_INCLUDE_DIRS})
target_link_libraries(schedkit_core PUBLIC ${CMAKE_DL_LIBS})
