# Third-party dependencies, all from Debian packages (scripts/setup.sh installs them).
#
# Each one becomes an imported target so the rest of the build names what it uses:
#   Threads::Threads        (PUBLIC: std::thread / std::jthread in the public headers)
#   tessera_deps::hwloc     libhwloc-dev     (pkg-config hwloc)
#   tessera_deps::openblas  libopenblas-dev  (pkg-config openblas: cblas.h, openblas_set_num_threads)
#   tessera_deps::lapacke   liblapacke-dev   (lapacke.h + liblapacke)
#   tessera_deps::fftw      libfftw3-dev     (pkg-config fftw3 and fftw3f: double and float)
#   tessera_deps::glpk      libglpk-dev      (glpk.h + libglpk; optional: TESSERA_HAVE_GLPK)
#   GTest::gtest_main       libgtest-dev     (only when BUILD_TESTING)

# Stops the configure with the Debian package to install.
function(tessera_missing_dependency what package)
    message(FATAL_ERROR
        "Tessera: ${what} was not found. Install the Debian package '${package}' "
        "(scripts/setup.sh installs every dependency: run it, then configure again).")
endfunction()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
    tessera_missing_dependency("pkg-config" pkg-config)
endif()

# pkg-config module -> tessera_deps::<name>, or a clear error naming the package.
function(tessera_pkg_dependency name package)
    set(modules ${ARGN})
    string(TOUPPER "TESSERA_PC_${name}" prefix)
    pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${modules})
    if(NOT ${prefix}_FOUND)
        tessera_missing_dependency("${name} (pkg-config: ${modules})" ${package})
    endif()
    add_library(tessera_deps::${name} INTERFACE IMPORTED)
    target_link_libraries(tessera_deps::${name} INTERFACE PkgConfig::${prefix})
endfunction()

tessera_pkg_dependency(hwloc libhwloc-dev hwloc)
# openblas.pc points at the OpenBLAS build itself (e.g. .../openblas-pthread/), not at
# whatever libblas.so the Debian alternatives currently select.
tessera_pkg_dependency(openblas libopenblas-dev openblas)
tessera_pkg_dependency(fftw libfftw3-dev fftw3 fftw3f)

# LAPACKE ships no pkg-config file on Debian.
find_path(TESSERA_LAPACKE_INCLUDE_DIR lapacke.h)
find_library(TESSERA_LAPACKE_LIBRARY lapacke)
if(NOT TESSERA_LAPACKE_INCLUDE_DIR OR NOT TESSERA_LAPACKE_LIBRARY)
    tessera_missing_dependency("LAPACKE (lapacke.h, liblapacke)" liblapacke-dev)
endif()
add_library(tessera_deps::lapacke INTERFACE IMPORTED)
target_include_directories(tessera_deps::lapacke INTERFACE ${TESSERA_LAPACKE_INCLUDE_DIR})
target_link_libraries(tessera_deps::lapacke INTERFACE ${TESSERA_LAPACKE_LIBRARY})

# GLPK solves the area bound's linear program (rt::area_bound, tessera-bound). Optional: without
# it TESSERA_HAVE_GLPK is OFF and area_bound throws. No pkg-config file on Debian either.
find_path(TESSERA_GLPK_INCLUDE_DIR glpk.h)
find_library(TESSERA_GLPK_LIBRARY glpk)
if(TESSERA_GLPK_INCLUDE_DIR AND TESSERA_GLPK_LIBRARY)
    set(TESSERA_HAVE_GLPK ON)
    add_library(tessera_deps::glpk INTERFACE IMPORTED)
    target_include_directories(tessera_deps::glpk INTERFACE ${TESSERA_GLPK_INCLUDE_DIR})
    target_link_libraries(tessera_deps::glpk INTERFACE ${TESSERA_GLPK_LIBRARY})
else()
    set(TESSERA_HAVE_GLPK OFF)
    message(STATUS "Tessera: GLPK not found: no area bound (install libglpk-dev)")
endif()

if(BUILD_TESTING)
    find_package(GTest QUIET)
    if(NOT TARGET GTest::gtest_main)
        tessera_missing_dependency("GoogleTest" libgtest-dev)
    endif()
endif()
