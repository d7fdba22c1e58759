// LAPACK layout <-> tile storage: the column-major array is registered in place, tile by tile
// (TileMatrix::wrap), and each tile is copied by a task. The registration lives in the
// sequence until its tasks are done; unregistering it then leaves the array valid. Conversions
// on the same array in one sequence share its registration, so that the runtime orders them
// (tiles_to_lapack_async into a, then lapack_to_tiles_async from it, reads what was written).
#include <tessera/la/layout.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

#include <limits>
#include <string>

namespace tessera::inline la {

namespace {
/// The checks of the array (as LAPACK's: lda >= max(1, m) even when there is nothing to copy).
template <Scalar T>
void check_lapack_array(TileMatrix<T> const& A, T const* a, int64_t lda, char const* fn)
{
    require(lda >= std::max<int64_t>(1, A.m()),
            std::string(fn) + ": lda = " + std::to_string(lda) +
                " must be >= max(1, m = " + std::to_string(A.m()) + ")");
    require(lda <= std::numeric_limits<int>::max(),
            std::string(fn) + ": lda = " + std::to_string(lda) + " exceeds the BLAS's int");
    require(a != nullptr || A.m() == 0 || A.n() == 0, std::string(fn) + ": the array is null");
}
/// `a` registered in place with A's shape and tile size, for sequence s (A checked usable on
/// it): the registration an earlier conversion of the sequence made of it, or a new one, kept
/// until s is done.
template <Scalar T>
TileMatrix<T>& wrap_lapack(TileMatrix<T> const& A, T* a, int64_t lda, bool writes, Sequence& s,
                           char const* fn)
{
    T const* end = a + (A.n() - 1) * lda + A.m();
    const std::string shape = std::string(1, precision_letter<T>()) + " " + std::to_string(A.m()) +
                              " x " + std::to_string(A.n()) + ", lda " + std::to_string(lda) +
                              ", nb " + std::to_string(A.nb());
    auto W = std::static_pointer_cast<TileMatrix<T>>(
        s.registration_of(a, end, shape, writes, std::string(fn) + ": the array"));
    if (!W) {
        W = std::make_shared<TileMatrix<T>>(
            TileMatrix<T>::wrap(A.runtime(), a, A.m(), A.n(), lda, A.nb()));
        s.keep_registration(a, end, shape, writes, W);
    }
    return *W;
}
}  // namespace

template <Scalar T>
void lapack_to_tiles_async(T const* a, int64_t lda, TileMatrix<T>& A, Sequence& s)
{
    check_lapack_array(A, a, lda, "lapack_to_tiles");
    if (A.m() == 0 || A.n() == 0) return;
    detail::require_usable_on<T>(s, "lapack_to_tiles", {{"A", A}});
    // Only read through the registration: casting the const away is safe.
    TileMatrix<T>& W = wrap_lapack(A, const_cast<T*>(a), lda, false, s, "lapack_to_tiles");
    const auto call = s.call("lapack_to_tiles");  // numbered once the array is accepted
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) s.submit(cl::copy<T>, read(W(i, j)), write(A(i, j)));
}

template <Scalar T>
void tiles_to_lapack_async(TileMatrix<T> const& A, T* a, int64_t lda, Sequence& s)
{
    check_lapack_array(A, a, lda, "tiles_to_lapack");
    if (A.m() == 0 || A.n() == 0) return;
    detail::require_usable_on<T>(s, "tiles_to_lapack", {{"A", A}});
    TileMatrix<T>& W = wrap_lapack(A, a, lda, true, s, "tiles_to_lapack");
    const auto call = s.call("tiles_to_lapack");  // numbered once the array is accepted
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) s.submit(cl::copy<T>, read(A(i, j)), write(W(i, j)));
}

template <Scalar T> void lapack_to_tiles(T const* a, int64_t lda, TileMatrix<T>& A)
{
    check_lapack_array(A, a, lda, "lapack_to_tiles");
    if (!A) return;
    synchronously(A.runtime(), [&](Sequence& s) { lapack_to_tiles_async(a, lda, A, s); });
}

template <Scalar T> void tiles_to_lapack(TileMatrix<T> const& A, T* a, int64_t lda)
{
    check_lapack_array(A, a, lda, "tiles_to_lapack");
    if (!A) return;
    synchronously(A.runtime(), [&](Sequence& s) { tiles_to_lapack_async(A, a, lda, s); });
}

template <Scalar T>
TileMatrix<T> tile_copy_of(rt::Runtime& rt, T const* a, int64_t m, int64_t n, int64_t lda,
                           int64_t nb)
{
    TileMatrix<T> A{rt, m, n, nb};
    lapack_to_tiles(a, lda, A);
    return A;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void lapack_to_tiles_async(T const*, int64_t, TileMatrix<T>&, Sequence&);             \
    template void tiles_to_lapack_async(TileMatrix<T> const&, T*, int64_t, Sequence&);             \
    template void lapack_to_tiles(T const*, int64_t, TileMatrix<T>&);                              \
    template void tiles_to_lapack(TileMatrix<T> const&, T*, int64_t);                              \
    template TileMatrix<T> tile_copy_of(rt::Runtime&, T const*, int64_t, int64_t, int64_t, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
