# TESSERA_SANITIZE: "" (none), "thread" (TSan) or "address" (ASan + UBSan).
#
# Applied to every target of the tree, compile and link, so that the library, the tests and
# the tools are all instrumented (a sanitizer misses what it does not see). -O1 -g1 keeps the
# reports readable (functions, files and lines; -g1 has no local variables, which a report
# does not print, and compiles about 20% faster than -g) and the runs fast enough;
# -fno-omit-frame-pointer gives full stacks.
# Only C++ sources are instrumented: nvcc does not take these flags (sanitizer trees are meant
# to be configured with TESSERA_ENABLE_CUDA=OFF).
set(TESSERA_SANITIZE "" CACHE STRING "Sanitizer: empty, thread or address (ASan+UBSan)")
set_property(CACHE TESSERA_SANITIZE PROPERTY STRINGS "" thread address)

if(TESSERA_SANITIZE STREQUAL "thread")
    set(_tessera_san_flags -fsanitize=thread)
elseif(TESSERA_SANITIZE STREQUAL "address")
    # UBSan normally prints and goes on; -fno-sanitize-recover makes undefined behaviour fail
    # the test that triggers it. Its null and alignment checks are left out: they made the
    # tree's compile 40% slower, a null dereference stops under ASan anyway (SEGV, with its
    # stack), and x86 runs misaligned accesses.
    set(_tessera_san_flags -fsanitize=address,undefined -fno-sanitize=null,alignment
        -fno-sanitize-recover=undefined)
elseif(NOT TESSERA_SANITIZE STREQUAL "")
    message(FATAL_ERROR
        "Tessera: TESSERA_SANITIZE='${TESSERA_SANITIZE}' is not one of: '', thread, address")
endif()

if(_tessera_san_flags)
    # These options come after CMAKE_CXX_FLAGS_<CONFIG> on the command line: -O1 and -g1 win.
    add_compile_options(
        "$<$<COMPILE_LANGUAGE:CXX>:${_tessera_san_flags};-O1;-g1;-fno-omit-frame-pointer>")
    add_link_options(${_tessera_san_flags})
endif()
unset(_tessera_san_flags)
