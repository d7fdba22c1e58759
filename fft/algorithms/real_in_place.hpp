// The real transforms in place, as FFTW lays them out: an n0 x n1 real array whose rows are
// padded to 2 (n1/2 + 1) reals shares its memory with its n0 x (n1/2 + 1) half-spectrum. Only
// the complex view is registered (one handle per byte); stage 1 reads a column's reals from
// its bytes. For the plans over arrays; the tile forms take two matrices. Internal.
#pragma once

#include <tessera/fft/fft2d.hpp>

namespace tessera::fft::detail {

/// A, (m/2 + 1) x n complex, holds the real m x n matrix in its columns' bytes: replaced by
/// its half-spectrum.
template <Real R> void r2c_in_place_async(int64_t m, TileMatrix<std::complex<R>>& A, Sequence& s);
/// The inverse: A's half-spectra replaced by the real m x n matrix in its columns' bytes.
template <Real R> void c2r_in_place_async(int64_t m, TileMatrix<std::complex<R>>& A, Sequence& s);

}  // namespace tessera::fft::detail
