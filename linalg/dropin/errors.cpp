// Bad arguments through xerbla_, as LAPACK reports them; other failures on stderr.
#include "linalg/dropin/call.hpp"

#include <tessera/tessera.h>

#include <cctype>
#include <cstdio>
#include <cstring>

namespace tessera::dropin {

void report_bad_argument(Entry const& entry, int position) noexcept
{
    char name[16] = {};  // "dpotrf_" -> "DPOTRF"
    for (std::size_t i = 0; i + 1 < sizeof name && entry.symbol()[i] && entry.symbol()[i] != '_';
         ++i)
        name[i] = char(std::toupper(static_cast<unsigned char>(entry.symbol()[i])));
    xerbla_(name, &position, std::strlen(name));
}

int report_failure(Entry const& entry, char const* what) noexcept
{
    std::fprintf(stderr, "tessera_lapack: %s failed inside Tessera: %s (info = %d)\n",
                 entry.symbol(), what, TESSERA_ERROR);
    return TESSERA_ERROR;
}

}  // namespace tessera::dropin
