// release_copies: the tile algorithms' hint to a distributed run (see release_copies.hpp).
#include "linalg/algorithms/release_copies.hpp"

#include "linalg/instantiate.hpp"
#include "runtime/core/placement.hpp"
#include "runtime/core/runtime_impl.hpp"

#include <tessera/rt/access.hpp>

namespace tessera::inline la::detail {

template <Scalar T>
void release_copies(TileMatrix<T> const& A, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
    if (!A || i0 >= i1 || j0 >= j1) return;
    rt::detail::TaskPlacement* placement = rt::detail::Internals::impl(A.runtime()).placement();
    if (!placement) return;  // one process: its copies are the data itself
    for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i)
            placement->release_copy(rt::detail::Internals::state(A(i, j)),
                                    A.reserved_for_copies(i, j));
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void release_copies<T>(TileMatrix<T> const&, int64_t, int64_t, int64_t, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la::detail
