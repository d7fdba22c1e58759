# CUDA support: TESSERA_ENABLE_CUDA = AUTO (default), ON, OFF or SIM.
#
# AUTO turns CUDA on when check_language(CUDA) finds a working nvcc (on PATH, or named by
# CUDACXX / -DCMAKE_CUDA_COMPILER=...). Passing -DCMAKE_CUDA_COMPILER= (empty) or keeping nvcc
# off PATH leaves CUDA out. A build without CUDA still builds everything but the CUDA driver
# and kernels.
#
# SIM builds the CUDA driver and kernels against the CUDA headers but links them to Tessera's
# CUDA simulator (tests/cudasim/) instead of cudart, cuBLAS, cuSOLVER and cuFFT: a simulated
# GPU whose streams are host threads, so that the driver runs, under the sanitizers too, on a
# machine without a GPU. No nvcc is needed (the .cu files are replaced by host twins). For
# testing only: nothing is installed from such a tree.
#
# Sets TESSERA_HAVE_CUDA and TESSERA_CUDA_SIM (ON or OFF), and the lists to link against:
# TESSERA_CUDA_RUNTIME_LIBS (cudart) and TESSERA_CUDA_MATH_LIBS (cuBLAS, cuFFT, cuSOLVER),
# both the simulator in SIM mode.
set(TESSERA_ENABLE_CUDA AUTO CACHE STRING "CUDA support: AUTO (when nvcc is found), ON, OFF or SIM")
set_property(CACHE TESSERA_ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF SIM)
set(TESSERA_CUDA_ARCHITECTURES "80;90" CACHE STRING
    "GPU architectures to build for (CMAKE_CUDA_ARCHITECTURES), e.g. \"80;90\" or native")

set(TESSERA_HAVE_CUDA OFF)
set(TESSERA_CUDA_SIM OFF)
set(TESSERA_CUDA_RUNTIME_LIBS CUDA::cudart)
set(TESSERA_CUDA_MATH_LIBS CUDA::cublas CUDA::cufft CUDA::cusolver)
string(TOUPPER "${TESSERA_ENABLE_CUDA}" _tessera_cuda_mode)

if(_tessera_cuda_mode STREQUAL "SIM")
    find_package(CUDAToolkit REQUIRED)  # the headers only
    set(TESSERA_HAVE_CUDA ON)
    set(TESSERA_CUDA_SIM ON)
    set(TESSERA_CUDA_RUNTIME_LIBS tessera_cudasim)
    set(TESSERA_CUDA_MATH_LIBS tessera_cudasim)
    message(STATUS "Tessera: CUDA ${CUDAToolkit_VERSION} headers, linked to the CUDA simulator "
                   "(tests/cudasim): for testing the driver without a GPU")
elseif(_tessera_cuda_mode STREQUAL "AUTO" OR TESSERA_ENABLE_CUDA)
    # check_language() configures a scratch project with CUDA enabled and caches the result in
    # CMAKE_CUDA_COMPILER (NOTFOUND when that fails), so a broken nvcc counts as no nvcc.
    # When CMAKE_CUDA_COMPILER is already defined (even empty) it is trusted as is.
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        set(TESSERA_HAVE_CUDA ON)
    elseif(_tessera_cuda_mode STREQUAL "AUTO")
        message(STATUS "Tessera: nvcc not found - CUDA support (cuBLAS, cuFFT) is left out")
    else()
        message(FATAL_ERROR
            "Tessera: TESSERA_ENABLE_CUDA=ON but no working nvcc was found. Put nvcc on PATH "
            "(e.g. export PATH=/usr/local/cuda/bin:$PATH) or pass "
            "-DCMAKE_CUDA_COMPILER=/path/to/nvcc; or configure with -DTESSERA_ENABLE_CUDA=OFF.")
    endif()
else()
    message(STATUS "Tessera: CUDA support is off (TESSERA_ENABLE_CUDA=${TESSERA_ENABLE_CUDA})")
endif()

if(TESSERA_HAVE_CUDA AND NOT TESSERA_CUDA_SIM)
    # Must be set before enable_language(CUDA): otherwise CMake picks a default architecture
    # that recent nvcc releases may no longer support.
    set(CMAKE_CUDA_ARCHITECTURES "${TESSERA_CUDA_ARCHITECTURES}")
    # The library links CUDA::cudart (shared); .cu objects must not pull cudart_static in too.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    enable_language(CUDA)

    # .cu files are C++20 like the rest. CMake 3.25 knows no C++20 flag for nvcc: then the
    # flag is passed by hand, and CUDA_STANDARD_REQUIRED is turned off, as CMake would otherwise
    # derive a required "CUDA20" dialect from CXX_STANDARD(_REQUIRED) and stop.
    if(CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
        set(CMAKE_CUDA_STANDARD 20)
        set(CMAKE_CUDA_STANDARD_REQUIRED ON)
        set(CMAKE_CUDA_EXTENSIONS OFF)
    else()
        set(CMAKE_CUDA_STANDARD_REQUIRED OFF)
        add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>")
    endif()

    find_package(CUDAToolkit REQUIRED)
    foreach(_lib IN ITEMS cudart cublas cufft cusolver)
        if(NOT TARGET CUDA::${_lib})
            message(FATAL_ERROR "Tessera: the CUDA toolkit at ${CUDAToolkit_LIBRARY_DIR} has "
                "no ${_lib}; install it or configure with -DTESSERA_ENABLE_CUDA=OFF")
        endif()
    endforeach()

    # Two architectures in every fat binary: compressing them keeps libtessera.so small.
    add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Xfatbin=-compress-all>")
    message(STATUS "Tessera: CUDA ${CUDAToolkit_VERSION} enabled (nvcc ${CMAKE_CUDA_COMPILER}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES})")
endif()
unset(_tessera_cuda_mode)
