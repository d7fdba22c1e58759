// TESSERA_LAPACK_VERBOSE=1: at exit, for each symbol called, how many calls Tessera ran and
// how many went to the next library, and why (too small; or nested: made by Tessera's own
// kernels, or by another thread while Tessera served one): the proof, for a NumPy or Fortran
// user, that Tessera served their calls.
#include "linalg/dropin/entry.hpp"

#include <cstdio>
#include <cstdlib>

namespace tessera::dropin {

constinit bool counting = false;

namespace {
bool verbose() noexcept
{
    char const* v = std::getenv("TESSERA_LAPACK_VERBOSE");
    return v && *v && *v != '0';
}

/// Constructed when the library is loaded, before any Entry is listed, so destroyed after
/// the calls are over (the entries are constant-initialized statics: they stay readable).
struct ExitReport {
    ExitReport() { counting = verbose(); }
    ~ExitReport()
    {
        if (!counting) return;
        for (Entry* e = first_entry(); e; e = e->next_entry)
            std::fprintf(
                stderr,
                "tessera_lapack: %-8s %9llu by Tessera, %9llu below the crossover, %9llu nested or "
                "concurrent\n",
                e->symbol(), static_cast<unsigned long long>(e->served.load()),
                static_cast<unsigned long long>(e->below_crossover.load()),
                static_cast<unsigned long long>(e->nested.load()));
    }
} exit_report;
}  // namespace

}  // namespace tessera::dropin
