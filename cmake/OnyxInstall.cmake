# `cmake --install build --prefix PREFIX` (docs/python.md, "Installing"):
#   PREFIX/bin/onyx-compile, onyx-run         the tools
#   PREFIX/lib/libonyx_runtime.so             the runtime (artifacts built by
#                                             the installed onyx-compile link
#                                             it: it looks in ../lib)
#   PREFIX/include/onyx/*.h                   the public headers
#   PREFIX/lib/cmake/Onyx/OnyxConfig.cmake    find_package(Onyx) -> Onyx::runtime
#   PREFIX/lib/pkgconfig/onyx-runtime.pc      pkg-config onyx-runtime
#   PREFIX/${ONYX_INSTALL_PYTHONDIR}/onyx/    the Python package
# The runtime always goes to PREFIX/lib (not a multiarch dir): that is where
# onyx-compile finds it for the artifacts it links.

# The version: ONYX_RUNTIME_VERSION of the public header.
file(STRINGS ${PROJECT_SOURCE_DIR}/runtime/include/onyx/onyx_runtime.h
     _onyx_version_line REGEX "^#define ONYX_RUNTIME_VERSION ")
string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" ONYX_VERSION "${_onyx_version_line}")

install(TARGETS onyx_runtime LIBRARY DESTINATION ${ONYX_INSTALL_LIBDIR}
        COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/onyx
        DESTINATION include COMPONENT runtime FILES_MATCHING PATTERN "*.h")
if(ONYX_BUILD_COMPILER)
  install(TARGETS onyx-compile onyx-run RUNTIME DESTINATION bin
          COMPONENT tools)
endif()

include(CMakePackageConfigHelpers)
configure_file(${PROJECT_SOURCE_DIR}/cmake/OnyxConfig.cmake.in
               ${PROJECT_BINARY_DIR}/cmake/OnyxConfig.cmake @ONLY)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/OnyxConfigVersion.cmake
  VERSION ${ONYX_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/OnyxConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/OnyxConfigVersion.cmake
        DESTINATION ${ONYX_INSTALL_LIBDIR}/cmake/Onyx COMPONENT runtime)
configure_file(${PROJECT_SOURCE_DIR}/cmake/onyx-runtime.pc.in
               ${PROJECT_BINARY_DIR}/cmake/onyx-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/onyx-runtime.pc
        DESTINATION ${ONYX_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)
