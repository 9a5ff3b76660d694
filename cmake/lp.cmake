# Linear programming: COIN-OR CLP (Debian coinor-libclp-dev), used by src/mechanisms/lp.*.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CLP REQUIRED IMPORTED_TARGET clp)
target_link_libraries(schedkit_core PUBLIC PkgConfig::CLP)
