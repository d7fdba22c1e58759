// A = alpha A, one task per tile.
#include <tessera/la/blas.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

namespace tessera::inline la {

template <Scalar T> void scale_async(scalar_arg<T> alpha, TileMatrix<T>& A, Sequence& s)
{
    const auto call = detail::begin_call<T>(s, "scale", {{"A", A}});
    for (int64_t n = 0; n < A.nt(); ++n)
        for (int64_t m = 0; m < A.mt(); ++m)
            s.submit(cl::scale<T>, rt::value(T(alpha)), readwrite(A(m, n)));
}

template <Scalar T> void scale(scalar_arg<T> alpha, TileMatrix<T>& A)
{
    if (!A) return;
    synchronously(A.runtime(), [&](Sequence& s) { scale_async(alpha, A, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void scale_async<T>(T, TileMatrix<T>&, Sequence&);                                    \
    template void scale<T>(T, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
