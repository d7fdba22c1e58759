// Codelets that move and make tiles: copy (the layout conversion), the generators and the
// per-tile parts of the norms. Internal.
#pragma once

#include "linalg/codelets/blas3.hpp"

#include <tessera/la/enums.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tessera::la::cl {

// ---- copy: B = A, tile by tile (LAPACK layout <-> tile storage) -------------------------------
template <Scalar T> void copy_tile(ConstTile<T> a, Tile<T> b)
{
    kernels::cpu::lacpy(a.m, a.n, a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
inline const rt::Codelet<ConstTile<T>, Tile<T>> copy{
    .name = by_precision<T>("slacpy", "dlacpy", "clacpy", "zlacpy"),
    .cpu = &copy_tile<T>,
};

// ---- generators -------------------------------------------------------------------------------
/// A counter-based random number in [-0.5, 0.5) for (seed, k): splitmix64, so that any tile
/// can be generated alone and the matrix does not depend on the tile size or the order.
inline double random_at(uint64_t seed, uint64_t k) noexcept
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (k + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-53 - 0.5;
}
/// Entry (i, j) of the random m x n matrix of `seed` (complex: independent real and imaginary parts).
template <Scalar T> T random_entry(uint64_t seed, int64_t i, int64_t j, int64_t m) noexcept
{
    const uint64_t k = uint64_t(i) + uint64_t(j) * uint64_t(m);
    if constexpr (is_complex_v<T>)
        return T(real_t<T>(random_at(seed, 2 * k)), real_t<T>(random_at(seed, 2 * k + 1)));
    else
        return T(random_at(seed, k));
}

/// Where a tile sits in the whole matrix and what the generator needs to know of it.
struct TilePlace {
    int64_t i0 = 0, j0 = 0;  ///< global index of the tile's first row and column
    int64_t m = 0;           ///< rows of the whole matrix
    uint64_t seed = 0;
};
template <Scalar T> void random_tile(Tile<T> a, TilePlace p)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i)
            a(i, j) = random_entry<T>(p.seed, p.i0 + i, p.j0 + j, p.m);
}
template <Scalar T>
inline const rt::Codelet<Tile<T>, TilePlace> random{
    .name = by_precision<T>("splrnt", "dplrnt", "cplrnt", "zplrnt"),
    .cpu = &random_tile<T>,
};

/// The Hermitian positive definite A = H D H^H of condition number kappa: D = diag(d_k) with
/// d_k = kappa^(-k/(n-1)) from 1 down to 1/kappa, and H = I - 2 v v^H / s the Householder
/// reflector of a random v (s = v^H v), unitary, so the eigenvalues of A are exactly the d_k:
///     a_ij = d_i [i = j] - (2/s) (d_i + d_j) v_i conj(v_j) + (4 t / s^2) v_i conj(v_j),
/// with t = sum_k d_k |v_k|^2. Every entry needs only v_i, v_j and the sums s and t.
struct HpdShape {
    int64_t n = 0;
    double kappa = 1;
    double s = 1, t = 1;  ///< v^H v and v^H D v
    uint64_t seed = 0;
};
inline double hpd_eigenvalue(HpdShape const& h, int64_t k) noexcept
{
    return h.n <= 1 ? 1.0 : std::pow(h.kappa, -double(k) / double(h.n - 1));
}
template <Scalar T> T hpd_vector_entry(HpdShape const& h, int64_t k) noexcept
{
    return random_entry<T>(h.seed, k, 0, h.n) +
           T(real_t<T>(0.75));  // away from 0: a dense reflector
}
template <Scalar T> void hpd_tile(Tile<T> a, int64_t i0, int64_t j0, HpdShape h)
{
    using R = real_t<T>;
    for (int64_t j = 0; j < a.n; ++j) {
        const int64_t gj = j0 + j;
        const T vj = conj(hpd_vector_entry<T>(h, gj));
        const double dj = hpd_eigenvalue(h, gj);
        for (int64_t i = 0; i < a.m; ++i) {
            const int64_t gi = i0 + i;
            const double di = hpd_eigenvalue(h, gi);
            const T vv = hpd_vector_entry<T>(h, gi) * vj;
            T x = vv * R(4 * h.t / (h.s * h.s) - 2 * (di + dj) / h.s);
            if (gi == gj)
                x = T(R(std::real(x) + di));  // the diagonal of a Hermitian matrix is real
            a(i, j) = x;
        }
    }
}
template <Scalar T>
inline const rt::Codelet<Tile<T>, int64_t, int64_t, HpdShape> hpd{
    .name = by_precision<T>("splghe", "dplghe", "cplghe", "zplghe"),
    .cpu = &hpd_tile<T>,
};

// ---- norms: per-tile parts reduced into one accumulator ----------------------------------------
// The accumulator of a norm, a vector of reals: the column sums of |a_ij| (one, length n),
// the row sums (inf, length m), the largest |a_ij| (max, length 1), or (scale, ssq) with
// sum |a_ij|^2 = scale^2 ssq (fro, LAPACK's lassq: no overflow). Every kind starts from
// zeros: (0, 0) is the empty sum of squares. Tile tasks add their part with a REDUX access,
// so they run in parallel on private copies that the runtime merges with the kind's
// reduction below.

/// Folds the sum of squares scale_b^2 ssq_b into (scale, ssq). A part of scale 0 adds
/// nothing, unless its ssq is NaN (a NaN in a tile of zeros), which must reach the result
/// (as in lange): adding NaN times anything makes the merged ssq NaN. Two infinite scales
/// add their ssq: their ratio Inf/Inf would make a NaN where lange gives Inf.
template <class R> void merge_ssq(R& scale, R& ssq, R scale_b, R ssq_b) noexcept
{
    if (scale_b == 0 && !std::isnan(ssq_b)) return;
    if (std::isinf(scale) && std::isinf(scale_b)) {
        ssq += ssq_b;  // NaN if either is
    } else if (scale < scale_b) {
        ssq = ssq_b + ssq * (scale / scale_b) * (scale / scale_b);
        scale = scale_b;
    } else {
        ssq += ssq_b * (scale_b / scale) * (scale_b / scale);
    }
}
/// x > m, or x NaN: a NaN entry makes a maximum NaN, as in lange.
template <class R> bool exceeds(R x, R m) noexcept
{
    return x > m || std::isnan(x);
}

/// Adds tile a's part of the norm into the accumulator `acc`; the tile's first column (one)
/// or row (inf) sits at acc[offset].
template <Scalar T>
void norm_tile(Norm norm, ConstTile<T> a, rt::Vector<real_t<T>> acc, int64_t offset)
{
    using R = real_t<T>;
    switch (norm) {
    case Norm::one:
        for (int64_t j = 0; j < a.n; ++j) {
            R s = 0;
            for (int64_t i = 0; i < a.m; ++i) s += std::abs(a(i, j));
            acc[offset + j] += s;
        }
        break;
    case Norm::inf:
        for (int64_t j = 0; j < a.n; ++j)
            for (int64_t i = 0; i < a.m; ++i) acc[offset + i] += std::abs(a(i, j));
        break;
    case Norm::max: {
        R m = acc[0];
        for (int64_t j = 0; j < a.n; ++j)
            for (int64_t i = 0; i < a.m; ++i)
                if (const R x = std::abs(a(i, j)); exceeds(x, m)) m = x;
        acc[0] = m;
        break;
    }
    case Norm::fro: {
        // each real or imaginary part x is the sum of squares |x|^2 1 (lassq's step)
        R scale = 0, ssq = 1;
        for (int64_t j = 0; j < a.n; ++j)
            for (int64_t i = 0; i < a.m; ++i) {
                merge_ssq(scale, ssq, R(std::abs(std::real(a(i, j)))), R(1));
                if constexpr (is_complex_v<T>)
                    merge_ssq(scale, ssq, R(std::abs(std::imag(a(i, j)))), R(1));
            }
        merge_ssq(acc[0], acc[1], scale, ssq);
        break;
    }
    }
}
template <Scalar T>
inline const rt::Codelet<Norm, ConstTile<T>, rt::Vector<real_t<T>>, int64_t> norm{
    .name = by_precision<T>("slange", "dlange", "clange", "zlange"),
    .cpu = &norm_tile<T>,
};

/// The accumulator's neutral element: zeros for every kind.
template <class R>
inline const rt::Codelet<rt::Vector<R>> norm_zero{
    .name = std::is_same_v<R, float> ? "snorm_zero" : "dnorm_zero",
    .cpu = +[](rt::Vector<R> acc) { std::fill(acc.begin(), acc.end(), R(0)); },
};
/// Reductions a = a (+) b of two accumulators: sums (one, inf), maximum (max), sums of
/// squares (fro).
template <class R>
inline const rt::Codelet<rt::Vector<R>, rt::Vector<const R>> norm_add{
    .name = std::is_same_v<R, float> ? "snorm_add" : "dnorm_add",
    .cpu =
        +[](rt::Vector<R> a, rt::Vector<const R> b) {
            for (int64_t k = 0; k < a.n; ++k) a[k] += b[k];
        },
};
template <class R>
inline const rt::Codelet<rt::Vector<R>, rt::Vector<const R>> norm_max{
    .name = std::is_same_v<R, float> ? "snorm_max" : "dnorm_max",
    .cpu =
        +[](rt::Vector<R> a, rt::Vector<const R> b) {
            if (exceeds(b[0], a[0])) a[0] = b[0];
        },
};
template <class R>
inline const rt::Codelet<rt::Vector<R>, rt::Vector<const R>> norm_ssq{
    .name = std::is_same_v<R, float> ? "snorm_ssq" : "dnorm_ssq",
    .cpu = +[](rt::Vector<R> a, rt::Vector<const R> b) { merge_ssq(a[0], a[1], b[0], b[1]); },
};

/// The norm from its reduced accumulator, written to *value: the largest column or row sum,
/// the maximum, or scale sqrt(ssq).
template <class R> void norm_finish(Norm norm, rt::Vector<const R> acc, R* value)
{
    R result = 0;
    if (norm == Norm::fro) {
        result = acc[0] * std::sqrt(acc[1]);
    } else {
        for (R x : acc)
            if (exceeds(x, result)) result = x;
    }
    *value = result;
}
template <class R>
inline const rt::Codelet<Norm, rt::Vector<const R>, R*> norm_finish_task{
    .name = std::is_same_v<R, float> ? "snorm_finish" : "dnorm_finish",
    .cpu = &norm_finish<R>,
};

}  // namespace tessera::la::cl

namespace tessera::la::cl {

// ---- scale: A = alpha A (BLAS's beta C when alpha op(A) op(B) vanishes) ------------------------
template <Scalar T> void scale_tile(T alpha, Tile<T> a)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i)
            a(i, j) = alpha == T(0) ? T(0) : alpha * a(i, j);  // 0: NaN-free, as BLAS
}
template <Scalar T>
inline const rt::Codelet<T, Tile<T>> scale{
    .name = by_precision<T>("slascl", "dlascl", "clascl", "zlascl"),
    .cpu = &scale_tile<T>,
};

}  // namespace tessera::la::cl
