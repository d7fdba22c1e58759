// The next BLAS/LAPACK: the library the drop-in stands in front of, which runs every call
// Tessera does not (below the crossover, re-entrant, or a routine Tessera lacks).
#include "linalg/dropin/entry.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace tessera::dropin {

namespace {
/// The library named by TESSERA_LAPACK_FALLBACK (a path or a soname), or null.
void* named_fallback() noexcept
{
    static void* const library = [] {
        char const* name = std::getenv("TESSERA_LAPACK_FALLBACK");
        if (!name || !*name) return static_cast<void*>(nullptr);
        void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            std::fprintf(
                stderr,
                "tessera_lapack: TESSERA_LAPACK_FALLBACK=%s cannot be opened (%s); using the next "
                "library in the link order\n",
                name, dlerror());
        return h;
    }();
    return library;
}

/// True when `f` is defined in this library itself (installed as liblapack.so.3, say):
/// forwarding to it would call the drop-in again.
bool defined_here(void* f) noexcept
{
    Dl_info mine{}, theirs{};
    return dladdr(reinterpret_cast<void*>(&next_definition), &mine) && dladdr(f, &theirs) &&
           mine.dli_fbase == theirs.dli_fbase;
}
}  // namespace

void* next_definition(char const* symbol) noexcept
{
    void* f = nullptr;
    if (void* named = named_fallback()) f = dlsym(named, symbol);
    if (!f) f = dlsym(RTLD_NEXT, symbol);
    if (!f || defined_here(f)) {
        // OpenBLAS: libtessera links it, so it is loaded; it has all of BLAS and LAPACK.
        static void* const openblas =
            dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        f = openblas ? dlsym(openblas, symbol) : nullptr;
    }
    if (!f || defined_here(f)) {
        std::fprintf(
            stderr,
            "tessera_lapack: no library after this one defines %s (set TESSERA_LAPACK_FALLBACK "
            "to a BLAS/LAPACK library); the call does nothing\n",
            symbol);
        return nullptr;
    }
    return f;
}

}  // namespace tessera::dropin
