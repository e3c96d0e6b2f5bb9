# `cmake --install` for odt: headers, the runtime (libodt.so, libodt.a),
# odt-run, odt-compile (when built), the CMake package (odtConfig.cmake:
# odt::runtime, odt::odt_static, odt::odt-compile, odt_add_model) and a
# pkg-config file. Included by the root after the runtime and odt-run; the
# compiler adds odt-compile to the export set itself (tools/odt-compile).
include(CMakePackageConfigHelpers)

set(ODT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/odt" CACHE STRING
    "Where odtConfig.cmake is installed, relative to the prefix")

install(FILES runtime/include/odt/odt.h runtime/include/odt/odt.hpp
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/odt" COMPONENT runtime)
install(TARGETS odt EXPORT odtTargets
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime
                NAMELINK_COMPONENT development
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS odt_runtime EXPORT odtTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(TARGETS odt-run EXPORT odtTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime)

# Users name the shared runtime odt::runtime and the static one
# odt::odt_static.
set_target_properties(odt PROPERTIES EXPORT_NAME runtime)
set_target_properties(odt_runtime PROPERTIES EXPORT_NAME odt_static)
# The same names inside this build, for a project that adds odt with
# add_subdirectory or FetchContent instead of find_package.
add_library(odt::runtime ALIAS odt)
add_library(odt::odt_static ALIAS odt_runtime)

install(EXPORT odtTargets NAMESPACE odt:: DESTINATION "${ODT_INSTALL_CMAKEDIR}"
        COMPONENT development)
configure_package_config_file(cmake/odtConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/odtConfig.cmake"
  INSTALL_DESTINATION "${ODT_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/odtConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/odtConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/odtConfigVersion.cmake"
              cmake/OdtAddModel.cmake
        DESTINATION "${ODT_INSTALL_CMAKEDIR}" COMPONENT development)

# pkg-config: `pkg-config --cflags --libs odt`. The prefix is found from the
# .pc file's own place, so `cmake --install --prefix` anywhere stays right.
file(RELATIVE_PATH ODT_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(cmake/odt.pc.in "${CMAKE_CURRENT_BINARY_DIR}/odt.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/odt.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT development)

install(FILES LICENSE README.md DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/odt"
        COMPONENT runtime)
