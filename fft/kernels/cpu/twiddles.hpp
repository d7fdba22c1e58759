// The four-step 1D transform's passes on tiles, and its twiddle factors
// w^m = exp(sign 2 pi i m / n), from two tables of about sqrt(n) entries each
// (w^m = w^(L floor(m / L)) w^(m mod L), L a power of two), computed in long double: one
// complex product per factor, within a few eps of the exact value, where sin and cos per
// element would cost more than the transforms. Internal.
#pragma once

#include "fft/kernels/cpu/tile_fft.hpp"

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace tessera::fft::kernels::cpu {

template <class R> class Twiddles {
public:
    /// The factors of an n-point transform with exponent sign `sign` (-1 or +1).
    Twiddles(int64_t n, int sign);
    int64_t n() const noexcept { return n_; }
    /// w^m for 0 <= m < n.
    std::complex<R> operator()(int64_t m) const noexcept
    {
        return std::complex<R>(high_[std::size_t(m >> shift_)] *
                               low_[std::size_t(m & (step_ - 1))]);
    }

private:
    int64_t n_, shift_, step_;                      // step_ = 2^shift_ >= sqrt(n)
    std::vector<std::complex<double>> low_, high_;  // w^t (t < step), w^(u step)
};

/// The factors of (n, sign), made once and shared by every plan, execute and task that needs
/// them: their 2 sqrt(n) long double sines and cosines cost 0.32 ms at n = 2^20 (11 us at
/// 2^10, each of a split's tasks), where a whole execute takes about 8 ms. Up to 32 shapes
/// are kept.
template <class R> std::shared_ptr<Twiddles<R> const> shared_twiddles(int64_t n, int sign);

/// x[r] *= w for r < h: a column times its twiddle, the product written out (std::complex's
/// checks for NaN cost more than the arithmetic here).
template <class R> void scale_column(std::complex<R>* x, int64_t h, std::complex<R> w);

/// The four-step's first pass on a tile row whose first row is row0 of the n1 x n2 matrix:
/// `out`'s rows = the n2-point DFTs of `in`'s, each element (j1, k2) then multiplied by
/// w^(j1 k2). A few rows at a time through a buffer in cache; `in` may be `out`.
template <class R>
void rows_c2c_twiddled(std::span<TilePiece<std::complex<R> const> const> in,
                       std::span<TilePiece<std::complex<R>> const> out, int sign, int64_t row0,
                       Twiddles<R> const& w);

/// The four-step's second pass and its transpose at once: the n1-point DFTs of the columns
/// of a tile column of A (`in`, stacked), written transposed into the tile row of X^T that
/// holds them (`out`, side by side: out tile i gets the rows of in tile i as its columns).
template <class R>
void columns_c2c_transposed(std::span<TilePiece<std::complex<R> const> const> in,
                            std::span<TilePiece<std::complex<R>> const> out, int sign);

}  // namespace tessera::fft::kernels::cpu
