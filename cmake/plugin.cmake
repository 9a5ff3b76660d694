# Policies as plugins (docs/write-a-policy.md): the installable package a plugin builds
# against, and the `schedkit` executable that loads plugins (schedkit/plugin.h).
#
# A plugin links against headers only (target schedkit::plugin). The executable holds the
# whole core library and exports its symbols, so a loaded plugin calls that one library
# and registers into its one set of registries; a plugin with its own copy of the
# library would fill registries nobody reads.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The plugin ABI header (cmake/plugin_abi.cmake), regenerated when a public header changes.
set(SCHEDKIT_GENERATED_INCLUDE ${CMAKE_BINARY_DIR}/generated/include)
set(SCHEDKIT_PLUGIN_ABI_HEADER ${SCHEDKIT_GENERATED_INCLUDE}/schedkit/plugin_abi.h)
file(GLOB SCHEDKIT_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/schedkit/*.h)
add_custom_command(
  OUTPUT ${SCHEDKIT_PLUGIN_ABI_HEADER}
  COMMAND ${CMAKE_COMMAND} -DOUT=${SCHEDKIT_PLUGIN_ABI_HEADER}
          -DHEADERS_DIR=${PROJECT_SOURCE_DIR}/include/schedkit -DVERSION=${PROJECT_VERSION}
          -P ${PROJECT_SOURCE_DIR}/cmake/plugin_abi.cmake
  DEPENDS ${SCHEDKIT_PUBLIC_HEADERS} ${PROJECT_SOURCE_DIR}/cmake/plugin_abi.cmake
  COMMENT "plugin ABI header")
add_custom_target(schedkit_plugin_abi DEPENDS ${SCHEDKIT_PLUGIN_ABI_HEADER})
# Only the loader's side includes schedkit/plugin.h; plugins get the folder from
# schedkit::plugin.
target_include_directories(schedkit_core PRIVATE ${SCHEDKIT_GENERATED_INCLUDE})
target_include_directories(schedkit PRIVATE ${SCHEDKIT_GENERATED_INCLUDE})
add_dependencies(schedkit_core schedkit_plugin_abi)
add_dependencies(schedkit schedkit_plugin_abi)
target_link_libraries(schedkit_core PUBLIC ${CMAKE_DL_LIBS})

# Every symbol of the core library is in the executable and exported (-rdynamic).
set_target_properties(schedkit PROPERTIES ENABLE_EXPORTS ON)
target_link_options(schedkit PRIVATE "LINKER:--whole-archive" "$<TARGET_FILE:schedkit_core>"
                    "LINKER:--no-whole-archive")

# What a plugin links: the public headers (installed, and the generated ABI header), C++20.
add_library(schedkit_plugin INTERFACE)
target_include_directories(schedkit_plugin INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${SCHEDKIT_GENERATED_INCLUDE}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(schedkit_plugin INTERFACE cxx_std_20)
set_target_properties(schedkit_plugin PROPERTIES EXPORT_NAME plugin)
add_library(schedkit::plugin ALIAS schedkit_plugin)
set_target_properties(schedkit PROPERTIES EXPORT_NAME cli)

# `cmake --install build --prefix P`: P/bin/schedkit, P/include/schedkit/*.h and
# P/lib/cmake/schedkit (find_package(schedkit CONFIG): targets schedkit::plugin and
# schedkit::cli, the executable).
install(TARGETS schedkit schedkit_plugin EXPORT schedkitTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${SCHEDKIT_PUBLIC_HEADERS} ${SCHEDKIT_PLUGIN_ABI_HEADER}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/schedkit)
set(SCHEDKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/schedkit)
install(EXPORT schedkitTargets NAMESPACE schedkit:: DESTINATION ${SCHEDKIT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/schedkitConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/schedkitConfig.cmake
                              INSTALL_DESTINATION ${SCHEDKIT_CMAKE_DIR})
# The ABI hash decides whether a plugin loads; the version file only refuses other releases.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/schedkitConfigVersion.cmake
                                 COMPATIBILITY ExactVersion)
install(FILES ${CMAKE_BINARY_DIR}/schedkitConfig.cmake
              ${CMAKE_BINARY_DIR}/schedkitConfigVersion.cmake
        DESTINATION ${SCHEDKIT_CMAKE_DIR})

if(SCHEDKIT_BUILD_TESTS)
  # Plugins that must be refused (tests/plugins/test_plugins.py), built in the tree.
  foreach(bad clash empty old_abi not_a bad_name twice)
    add_library(schedkit_test_${bad}_plugin MODULE ${PROJECT_SOURCE_DIR}/tests/plugins/${bad}_plugin.cc)
    target_link_libraries(schedkit_test_${bad}_plugin PRIVATE schedkit_plugin)
    add_dependencies(schedkit_test_${bad}_plugin schedkit_plugin_abi)
  endforeach()
  # Installs schedkit into a temporary prefix, builds examples/plugin against it with
  # find_package, and runs the plugin through policies, simulate, compare, sweep and serve.
  add_test(NAME plugins_python COMMAND /usr/bin/python3 -m unittest -v test_plugins
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/tests/plugins)
  set_tests_properties(plugins_python PROPERTIES TIMEOUT 120 ENVIRONMENT
    "SCHEDKIT_BUILD_DIR=${CMAKE_BINARY_DIR};SCHEDKIT_SOURCE_DIR=${PROJECT_SOURCE_DIR};SCHEDKIT_TEST_PLUGIN_DIR=$<TARGET_FILE_DIR:schedkit_test_empty_plugin>;SCHEDKIT_CXX=${CMAKE_CXX_COMPILER};SCHEDKIT_GENERATOR=${CMAKE_GENERATOR};SCHEDKIT_WITH_RUNTIME=$<BOOL:${SCHEDKIT_BUILD_RUNTIME}>")
endif()
