# Install rules: the library, the public headers, a CMake package and a pkg-config file.
#
#   <prefix>/lib/libtessera.so*, and libtessera_mpi.so* when MPI was found
#   <prefix>/include/tessera/...             (only *.hpp / *.h: internal headers stay out)
#   <prefix>/lib/cmake/Tessera/TesseraConfig.cmake, TesseraConfigVersion.cmake,
#                              TesseraTargets.cmake (namespace Tessera::)
#   <prefix>/lib/pkgconfig/tessera.pc
#
# Both package files are relocatable, so `cmake --install build --prefix <anywhere>` works
# (tests/install/check_install.sh checks exactly that).
include(CMakePackageConfigHelpers)

set(TESSERA_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Tessera")

install(TARGETS tessera EXPORT TesseraTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# rt/mpi.hpp only with libtessera_mpi (runtime/mpi/), which is installed beside libtessera but
# not yet part of the CMake package (link it as -ltessera_mpi with MPI's flags)
if(TESSERA_HAVE_MPI)
    install(TARGETS tessera_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    set(_tessera_no_mpi_header "")
else()
    set(_tessera_no_mpi_header PATTERN "mpi.hpp" EXCLUDE)
endif()
install(DIRECTORY include/tessera
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" ${_tessera_no_mpi_header})
install(EXPORT TesseraTargets
    NAMESPACE Tessera::
    DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})

configure_package_config_file(cmake/TesseraConfig.cmake.in
    "${PROJECT_BINARY_DIR}/TesseraConfig.cmake"
    INSTALL_DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})
# 0.x: a new minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake"
    COMPATIBILITY SameMinorVersion)
install(FILES
        "${PROJECT_BINARY_DIR}/TesseraConfig.cmake"
        "${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake"
    DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})

# pkg-config: prefix is found from the .pc file's own place (${pcfiledir}), which keeps the
# file relocatable like the CMake package. The install dirs must then be relative (the
# GNUInstallDirs default).
set(_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    message(FATAL_ERROR "Tessera: CMAKE_INSTALL_LIBDIR and CMAKE_INSTALL_INCLUDEDIR must be "
                        "relative to CMAKE_INSTALL_PREFIX")
endif()
file(RELATIVE_PATH TESSERA_PC_PREFIX_FROM_PCFILEDIR "/root/${_pc_dir}" "/root")
string(REGEX REPLACE "/$" "" TESSERA_PC_PREFIX_FROM_PCFILEDIR
       "${TESSERA_PC_PREFIX_FROM_PCFILEDIR}")
# Consumers of a CUDA build see the same macro and the CUDA headers that rt/cuda.hpp includes.
set(TESSERA_PC_EXTRA_CFLAGS "")
if(TESSERA_HAVE_CUDA)
    list(JOIN CUDAToolkit_INCLUDE_DIRS " -I" _cuda_includes)
    set(TESSERA_PC_EXTRA_CFLAGS " -DTESSERA_HAVE_CUDA=1 -I${_cuda_includes}")
endif()
configure_file(cmake/tessera.pc.in "${PROJECT_BINARY_DIR}/tessera.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/tessera.pc" DESTINATION ${_pc_dir})
unset(_pc_dir)
