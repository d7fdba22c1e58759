/// @file qr.hpp
/// The QR family: A = Q R with Q unitary (orthogonal when real) as a product of Householder
/// reflectors H = I - tau v v^H, and the calls that apply Q (unmqr, LAPACK's ormqr for the
/// real types) or form it (ungqr, LAPACK's orgqr).
///
/// Two representations of Q, one per form:
///  - The **tile forms** run the tile QR of PLASMA: each tile column is reduced to a triangle
///    by eliminations on tiles (geqrt of a tile, tsqrt of a tile against a triangle, ttqrt of a
///    triangle against another), with inner blocking ib, along a reduction tree; the
///    reflectors stay in A where the eliminated entries were and their triangular factors in
///    a QrFactors. The tree decides how parallel a tall matrix's factorization is: a flat tree
///    eliminates a tile column's tiles one after the other into its diagonal tile; a binary
///    tree in log2 steps; QrTree::automatic takes flat trees over domains of tile rows, merged
///    by a binary tree, with as many domains as keep every worker busy.
///  - The **LAPACK-style forms** return LAPACK's compact form: on and above the diagonal R;
///    below it, the vector of each reflector H_i (v_i(i) = 1 not stored, v_i(1:i-1) = 0), with
///    tau_i in tau: Q = H_1 H_2 ... H_k, k = min(m, n). LAPACK's own ormqr and orgqr accept it,
///    and these calls accept LAPACK's. Each panel of columns is factored whole (rows from its
///    diagonal down) and applied to the columns on its right as one block reflector
///    I - V T V^H, by blocks of columns in parallel.
///
/// The LQ (A = L Q: gelqf, unmlq, unglq) is the QR of A^H in both forms, and gels solves
/// least-squares and minimum-norm problems through the QR (m >= n) or the LQ (m < n).
///
/// As in blas.hpp, the `_async` forms submit into a sequence and return at once, the other
/// forms wait; a bad argument throws InvalidArgument (tile forms: F made for another shape or
/// tile size included) or, in the LAPACK-style forms, InvalidLapackArgument naming it.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::inline la {

/// The reduction tree of the tile QR (see the file's comment).
enum class QrTree : uint8_t {
    automatic,  ///< flat over domains of tile rows, binary across them, by shape and workers
    flat,       ///< every tile of a column eliminated into the diagonal tile, one after the other
    binary,     ///< every tile factored alone, then merged pairwise in log2(tile rows) steps
};

/// The triangular factors T of the tile QR's eliminations (PLASMA's T descriptor), with the
/// tree and the inner blocking that made them: unmqr and ungqr replay the same eliminations.
/// Each elimination of tile (i, k) keeps an ib x nb factor: one for its geqrt or tsqrt, one
/// for its ttqrt (binary and automatic trees).
template <Scalar T> class QrFactors {
public:
    /// A factor: a registered ib x kb matrix handle, kb the width of its tile column.
    using Tile = rt::Handle<rt::Matrix<T>>;

    /// No factors, on no runtime.
    QrFactors() = default;
    /// The factors of a QR of A (its shape and tile size, on its runtime), with `tree` and
    /// inner blocking ib (0: automatic, min(32, nb)). Throws InvalidArgument when ib < 0.
    explicit QrFactors(TileMatrix<T> const& A, QrTree tree = QrTree::automatic, int64_t ib = 0);
    /// The factors of an LQ of A (gelqf): those of the QR of A^H, n x m.
    static QrFactors for_lq(TileMatrix<T> const& A, QrTree tree = QrTree::automatic,
                            int64_t ib = 0);

    int64_t ib() const noexcept { return s_ ? s_->ib : 1; }          ///< inner blocking
    int64_t domain() const noexcept { return s_ ? s_->domain : 1; }  ///< tile rows per flat domain
    /// Does this hold the factors of a QR of an m x n matrix of tile size nb?
    bool fits(int64_t m, int64_t n, int64_t nb) const noexcept;
    /// The factor of the geqrt or tsqrt that eliminated tile (i, k), k <= i (unchecked).
    Tile& square(int64_t i, int64_t k) const noexcept { return s_->square[s_->index(i, k)]; }
    /// The factor of the ttqrt that merged tile (i, k)'s triangle (unchecked; only when
    /// merges()).
    Tile& triangle(int64_t i, int64_t k) const noexcept { return s_->triangle[s_->index(i, k)]; }
    /// Whether the tree merges triangles (ttqrt), so that triangle() has factors: binary and
    /// automatic trees over more than one domain.
    bool merges() const noexcept { return s_ && !s_->triangle.empty(); }
    /// The runtime the factors are registered with; InvalidArgument when there is none.
    rt::Runtime& runtime() const;
    /// False for default-constructed (or moved-from) factors, which have no runtime.
    explicit operator bool() const noexcept { return s_ != nullptr; }

private:
    struct Storage {
        rt::Runtime* rt = nullptr;
        int64_t m = 0, n = 0, nb = 1, mt = 0, kt = 0, ib = 1, domain = 1;
        T* buffer = nullptr;
        mutable std::vector<Tile> square, triangle;
        std::size_t index(int64_t i, int64_t k) const noexcept
        {
            return std::size_t(k * mt - k * (k - 1) / 2 + (i - k));  // column k's tiles k..mt-1
        }
        ~Storage();
    };
    QrFactors(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb, QrTree tree, int64_t ib);
    std::shared_ptr<Storage> s_;
};

/// Factors the m x n A = Q R in place by the tile QR (R on and above the diagonal, the
/// reflectors below it and in F). F must be QrFactors{A} (or made for A's shape and tile
/// size), else InvalidArgument. geqrf_async returns at once; geqrf waits.
///@{
template <Scalar T> void geqrf_async(TileMatrix<T>& A, QrFactors<T>& F, Sequence& s);
template <Scalar T> void geqrf(TileMatrix<T>& A, QrFactors<T>& F);
///@}
/// LAPACK's geqrf on the column-major m x n array a: R and the reflectors in LAPACK's compact
/// form, tau with min(m, n) entries. Waits; returns 0 (LAPACK's info).
template <Scalar T> [[nodiscard]] int64_t geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau);

/// C = op(Q) C (Side::left, C with A's rows) or C op(Q) (Side::right, C's columns A's rows),
/// Q from the tile QR of A and F; op is Op::notrans or Q^H (Op::conjtrans; Op::trans too for
/// the real types). C must have A's tile size. unmqr_async returns at once; unmqr waits.
///@{
template <Scalar T>
void unmqr_async(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C,
                 Sequence& s);
template <Scalar T>
void unmqr(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C);
///@}
/// LAPACK's ormqr/unmqr: C (m x n) = op(Q) C or C op(Q), Q = H_1 ... H_k from the compact form
/// in a (m x k for the left side, n x k for the right) and tau. Returns 0.
template <Scalar T>
[[nodiscard]] int64_t unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a,
                            int64_t lda, T const* tau, T* c, int64_t ldc);

/// The first Q.n() columns of the factorization's Q (Q.n() <= A.m(), Q with A's rows and tile
/// size), from the tile QR of A and F: Q [I; 0]. ungqr_async returns at once; ungqr waits.
///@{
template <Scalar T>
void ungqr_async(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q, Sequence& s);
template <Scalar T> void ungqr(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q);
///@}
/// LAPACK's orgqr/ungqr: the m x n a (n <= m) becomes the first n columns of Q = H_1 ... H_k
/// from the compact form of k <= n reflectors in its first k columns and tau. Returns 0.
template <Scalar T>
[[nodiscard]] int64_t ungqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau);

/// The tile LQ: A = L Q with L lower trapezoidal (on and below the diagonal of A) and Q's
/// reflectors right of it and in F (`QrFactors<T>::for_lq(A)`), computed as the tile QR of
/// A^H (A^H = Q' R, L = R^H, Q = Q'^H): A's tiles are conjugate-transposed into a matrix of
/// their own, factored, and transposed back (O(m n) copies against O(m n min(m, n)) flops).
/// gelqf_async returns at once; gelqf waits.
///@{
template <Scalar T> void gelqf_async(TileMatrix<T>& A, QrFactors<T>& F, Sequence& s);
template <Scalar T> void gelqf(TileMatrix<T>& A, QrFactors<T>& F);
///@}
/// C = op(Q) C (left, C with A's columns as rows) or C op(Q) (right, C's columns A's), Q from
/// the tile LQ of A and F; op as in unmqr. unmlq_async returns at once; unmlq waits.
///@{
template <Scalar T>
void unmlq_async(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C,
                 Sequence& s);
template <Scalar T>
void unmlq(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C);
///@}
/// Q's first Q.m() rows (Q.m() <= A.n(), Q with A's columns and tile size), from the tile LQ
/// of A and F. unglq_async returns at once; unglq waits.
///@{
template <Scalar T>
void unglq_async(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q, Sequence& s);
template <Scalar T> void unglq(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q);
///@}

/// LAPACK's gelqf: A = L Q, L lower trapezoidal on and below the diagonal of the m x n a and
/// Q = H_k^H ... H_1^H (k = min(m, n); H_k ... H_1 for the real types) in LAPACK's compact
/// form, conj(v_i) in row i right of the diagonal, tau with k entries. Computed as the compact
/// QR of A^H (see gelqf.cpp). Returns 0.
template <Scalar T> [[nodiscard]] int64_t gelqf(int64_t m, int64_t n, T* a, int64_t lda, T* tau);
/// LAPACK's ormlq/unmlq: C (m x n) = op(Q) C or C op(Q), Q from gelqf's compact form in the
/// k x m (left) or k x n (right) a and tau. Returns 0.
template <Scalar T>
[[nodiscard]] int64_t unmlq(Side side, Op op, int64_t m, int64_t n, int64_t k, T const* a,
                            int64_t lda, T const* tau, T* c, int64_t ldc);
/// LAPACK's orglq/unglq: the m x n a (m <= n) becomes the first m rows of gelqf's Q, from
/// the compact form of k <= m reflectors in its first k rows and tau. Returns 0.
template <Scalar T>
[[nodiscard]] int64_t unglq(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T const* tau);

/// gels on tile matrices: op(A) X = B solved in least squares or with the minimum norm as the
/// LAPACK-style gels below, through the tile QR (m >= n; F = QrFactors{A}) or the tile LQ
/// (m < n; F = `QrFactors<T>::for_lq(A)`); B is max(m, n) x nrhs with A's tile size, and A and F
/// end as geqrf or gelqf leave them. Returns LAPACK's info (i > 0: the i-th diagonal entry of
/// R or L is exactly zero; no solution is computed, and B holds what the steps before the
/// solve made of it). gels_async returns at once (s.wait() gives info); gels waits.
///@{
template <Scalar T>
void gels_async(Op op, TileMatrix<T>& A, QrFactors<T>& F, TileMatrix<T>& B, Sequence& s);
template <Scalar T>
[[nodiscard]] int64_t gels(Op op, TileMatrix<T>& A, QrFactors<T>& F, TileMatrix<T>& B);
///@}
/// LAPACK's gels: for the m x n A of full rank, the least-squares solution of an
/// overdetermined op(A) X = B (min ||B - op(A) X||_2) or the minimum-norm solution of an
/// underdetermined one, through the QR (m >= n) or LQ (m < n) of A. B is max(m, n) x nrhs:
/// op(A)'s rows of right-hand sides in, its columns of solutions out; for a least-squares
/// problem, the rows below the solution hold the residual's components (the sum of their
/// squares is the residual's). A holds its factorization (geqrf's or gelqf's compact form).
/// op is Op::notrans or op(A) = A^H (Op::conjtrans; Op::trans too for the real types).
/// info = i > 0 when the i-th diagonal entry of the triangular factor is exactly zero: A is
/// not of full rank and no solution is computed.
template <Scalar T>
[[nodiscard]] int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b,
                           int64_t ldb);

}  // namespace tessera::inline la
