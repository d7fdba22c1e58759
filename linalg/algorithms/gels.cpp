// The tile gels, for A with at least as many rows as columns (m >= n), through the tile QR:
//     A X = B:    A = Q R;  B = Q^H B;  R X = B(0:n)         (rows n.. of B: the residual's)
//     A^H X = B:  A = Q R;  R^H Y = B(0:n);  B = Q [Y; 0]
// R and the n rows of the solution are copied out of A's and B's tiles into tile matrices of
// their own (the last tile row of A may hold rows of V below R), solved there with the tile
// trsm, and copied back. A zero on R's diagonal records LAPACK's info and stops the sequence
// before the solve (LAPACK's trtrs check: one task on every diagonal tile, before any of the
// solve's).
#include <tessera/la/blas.hpp>
#include <tessera/la/qr.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/algorithms/qr_steps.hpp"
#include "linalg/codelets/qr.hpp"
#include "linalg/instantiate.hpp"

#include <memory>
#include <vector>

namespace tessera::inline la {

template <Scalar T>
void gels_async(Op op, TileMatrix<T>& A, QrFactors<T>& F, TileMatrix<T>& B, Sequence& s)
{
    constexpr char const* fn = "gels";
    detail::require_op(fn, "op", op);
    require(!(is_complex_v<T> && op == Op::trans), "gels: op must be Op::notrans or Op::conjtrans for complex matrices");
    require(A.m() >= A.n(), [&] {
        return "gels: the tile form solves through A's QR, which needs m >= n (A is " + std::to_string(A.m()) + " x " +
               std::to_string(A.n()) + "); the LAPACK-style gels takes m < n (through the LQ)";
    });
    require(B.m() == A.m() && (B.m() == 0 || B.n() == 0 || B.nb() == A.nb()), [&] {
        return "gels: B (" + std::to_string(B.m()) + " x " + std::to_string(B.n()) + ", nb " + std::to_string(B.nb()) +
               ") must have A's " + std::to_string(A.m()) + " rows and tile size " + std::to_string(A.nb());
    });
    detail::require_factors_of(fn, F, A);
    const auto call = detail::begin_call<T>(s, fn, {{"A", A, true}, {"B", B, true}});
    const int64_t n = A.n(), nb = A.nb(), nt = A.nt();
    if (n == 0 || B.n() == 0) return;
    const bool solve_ls = op == Op::notrans;
    geqrf_async(A, F, s);
    if (solve_ls) unmqr_async(Side::left, Op::conjtrans, A, F, B, s);
    auto R = std::make_shared<TileMatrix<T>>(s.runtime(), n, n, nb);
    auto X = std::make_shared<TileMatrix<T>>(s.runtime(), n, B.n(), nb);
    for (int64_t j = 0; j < nt; ++j)
        for (int64_t i = 0; i <= j; ++i) s.submit(cl::copy_part<T>, read(A(i, j)), write((*R)(i, j)));
    for (int64_t j = 0; j < B.nt(); ++j)
        for (int64_t i = 0; i < nt; ++i) s.submit(cl::copy_part<T>, read(B(i, j)), write((*X)(i, j)));
    std::vector<typename TileMatrix<T>::Tile*> diagonal;
    for (int64_t k = 0; k < nt; ++k) diagonal.push_back(&(*R)(k, k));
    s.submit(cl::zero_diagonal<T>, rt::readwrite_all(diagonal), rt::value(s.info_target(OnInfo::stops)));
    trsm_async<T>(Side::left, Uplo::upper, solve_ls ? Op::notrans : op, Diag::nonunit, T(1), *R, *X, s);
    for (int64_t j = 0; j < B.nt(); ++j)
        for (int64_t i = 0; i < nt; ++i) s.submit(cl::copy_part<T>, read((*X)(i, j)), readwrite(B(i, j)));
    if (!solve_ls) {  // B = Q [Y; 0]
        for (int64_t j = 0; j < B.nt(); ++j)
            for (int64_t i = nt - 1; i < B.mt(); ++i)
                s.submit(cl::zero_rows<T>, readwrite(B(i, j)), rt::value(n - i * nb));
        unmqr_async(Side::left, Op::notrans, A, F, B, s);
    }
    s.keep_alive(R);  // their tiles until the tasks are done
    s.keep_alive(X);
}

template <Scalar T>
int64_t gels(Op op, TileMatrix<T>& A, QrFactors<T>& F, TileMatrix<T>& B)
{
    if (!A) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { gels_async(op, A, F, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                      \
    template void gels_async<T>(Op, TileMatrix<T>&, QrFactors<T>&, TileMatrix<T>&, Sequence&);      \
    template int64_t gels<T>(Op, TileMatrix<T>&, QrFactors<T>&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
