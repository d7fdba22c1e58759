// The tile gels, through the tile QR (m >= n) or the tile LQ (m < n), as LAPACK's:
//     m >= n, A X = B:    A = Q R;  B = Q^H B;  R X = B(0:n)     (rows n.. of B: the residual's)
//     m >= n, A^H X = B:  A = Q R;  R^H Y = B(0:n);  B = Q [Y; 0]
//     m <  n, A X = B:    A = L Q;  L Y = B(0:m);    B = Q^H [Y; 0]
//     m <  n, A^H X = B:  A = L Q;  B = Q B;  L^H X = B(0:m)
// The triangle and the k = min(m, n) rows of the solution are copied out of A's and B's tiles
// into tile matrices of their own (A's last tile row or column may hold reflectors beside the
// triangle), solved there with the tile trsm, and copied back. A zero on R's diagonal records LAPACK's info and stops the sequence
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
    require(!(is_complex_v<T> && op == Op::trans),
            "gels: op must be Op::notrans or Op::conjtrans for complex matrices");
    const int64_t m = A.m(), n = A.n(), k = std::min(m, n), nb = A.nb(), rows = std::max(m, n);
    require(B.m() == rows && (B.m() == 0 || B.n() == 0 || B.nb() == nb), [&] {
        return "gels: B (" + std::to_string(B.m()) + " x " + std::to_string(B.n()) + ", nb " +
               std::to_string(B.nb()) + ") must have max(m, n) = " + std::to_string(rows) +
               " rows and A's tile size " + std::to_string(nb);
    });
    const bool qr = m >= n;
    require(F.fits(qr ? m : n, qr ? n : m, nb), [&] {
        return std::string("gels: F must be ") +
               (qr ? "QrFactors{A} (m >= n: the QR of A)"
                   : "QrFactors<T>::for_lq(A) (m < n: the LQ of A)");
    });
    const auto call = detail::begin_call<T>(s, fn, {{"A", A, true}, {"B", B, true}});
    if (k == 0 || B.n() == 0) return;
    const int64_t kt = (k + nb - 1) / nb;
    // least squares: A X = B through the QR, A^H X = B through the LQ; else minimum norm
    const bool least_squares = (op == Op::notrans) == qr;
    if (qr)
        geqrf_async(A, F, s);
    else
        gelqf_async(A, F, s);
    if (least_squares) {  // B = Q^H B (QR) or Q B (the LQ's Q, as A^H = Q^H L^H)
        if (qr)
            unmqr_async(Side::left, Op::conjtrans, A, F, B, s);
        else
            unmlq_async(Side::left, Op::notrans, A, F, B, s);
    }
    auto R = std::make_shared<TileMatrix<T>>(s.runtime(), k, k, nb);  // R, or L
    auto X = std::make_shared<TileMatrix<T>>(s.runtime(), k, B.n(), nb);
    for (int64_t j = 0; j < kt; ++j)
        for (int64_t i = qr ? 0 : j; i < (qr ? j + 1 : kt); ++i)
            s.submit(cl::copy_part<T>, read(A(i, j)), write((*R)(i, j)));
    for (int64_t j = 0; j < B.nt(); ++j)
        for (int64_t i = 0; i < kt; ++i)
            s.submit(cl::copy_part<T>, read(B(i, j)), write((*X)(i, j)));
    std::vector<typename TileMatrix<T>::Tile*> diagonal;
    for (int64_t d = 0; d < kt; ++d) diagonal.push_back(&(*R)(d, d));
    s.submit(cl::zero_diagonal<T>, rt::readwrite_all(diagonal),
             rt::value(s.info_target(OnInfo::stops)));
    trsm_async<T>(Side::left, qr ? Uplo::upper : Uplo::lower, op, Diag::nonunit, T(1), *R, *X, s);
    for (int64_t j = 0; j < B.nt(); ++j)
        for (int64_t i = 0; i < kt; ++i)
            s.submit(cl::copy_part<T>, read((*X)(i, j)), readwrite(B(i, j)));
    if (!least_squares) {  // X = Q [Y; 0] (QR) or Q^H [Y; 0] (LQ)
        for (int64_t j = 0; j < B.nt(); ++j)
            for (int64_t i = kt - 1; i < B.mt(); ++i)
                s.submit(cl::zero_rows<T>, readwrite(B(i, j)), rt::value(k - i * nb));
        if (qr)
            unmqr_async(Side::left, Op::notrans, A, F, B, s);
        else
            unmlq_async(Side::left, Op::conjtrans, A, F, B, s);
    }
    s.keep_alive(R);  // their tiles until the tasks are done
    s.keep_alive(X);
}

template <Scalar T> int64_t gels(Op op, TileMatrix<T>& A, QrFactors<T>& F, TileMatrix<T>& B)
{
    if (!A) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { gels_async(op, A, F, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void gels_async<T>(Op, TileMatrix<T>&, QrFactors<T>&, TileMatrix<T>&, Sequence&);     \
    template int64_t gels<T>(Op, TileMatrix<T>&, QrFactors<T>&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
