// Codelets of the 2D transforms: stage 1 down a tile column (complex, real to half-spectrum,
// half-spectrum to real), stage 2 along a tile row. Each task takes a whole tile column or
// row as a span. Flops as FFTW counts them: 5 m log2 m per complex m-point transform, half
// that for a real one. Internal.
#pragma once

#include "fft/kernels/cpu/digit_reversed.hpp"
#include "fft/kernels/cpu/split_rows.hpp"
#include "fft/kernels/cpu/tile_fft.hpp"
#include "fft/kernels/cpu/transpose.hpp"
#include "fft/kernels/cpu/twiddles.hpp"
#include "linalg/codelets/blas3.hpp"  // TESSERA_IF_CUDA

#include <tessera/rt/codelet.hpp>
#include <tessera/rt/interfaces.hpp>
#include <tessera/rt/perfmodel.hpp>
#include <tessera/rt/span.hpp>

#include <cmath>
#include <complex>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#if TESSERA_HAVE_CUDA
#include "fft/kernels/cuda/tile_fft.hpp"
#endif

namespace tessera::fft::cl {

template <class R> using Complex = std::complex<R>;

/// `s` for float, `d` for double.
template <class R> constexpr std::string_view by_real(std::string_view s, std::string_view d)
{
    return std::is_same_v<R, float> ? s : d;
}

/// The tiles of a span as the kernels see them, in a thread's buffer (`Slot` tells apart two
/// spans of one type in the same task).
template <class T, int Slot = 0>
std::span<kernels::cpu::TilePiece<T> const> pieces(rt::Span<rt::Matrix<T>> tiles)
{
    thread_local std::vector<kernels::cpu::TilePiece<T>> list;
    list.clear();
    for (rt::Matrix<T> t : tiles) list.push_back({t.ptr, t.m, t.n, t.ld});
    return list;
}

/// 5 m log2 m flops per complex transform of m points, for `count` of them (scaled by
/// `share`: 1/2 for real transforms).
inline double transform_flops(int64_t m, int64_t count, double share = 1)
{
    return m > 1 ? share * 5.0 * double(m) * std::log2(double(m)) * double(count) : 0.0;
}

template <class T> int64_t rows_of(rt::Span<rt::Matrix<T>> const& tiles)
{
    int64_t m = 0;
    for (rt::Matrix<T> t : tiles) m += t.m;
    return m;
}

// ---- stage 1, complex: out's tile column = the column DFTs of in's (in may be out) ----------

template <class R>
void columns_tiles(rt::Span<rt::Matrix<Complex<R> const>> in, rt::Span<rt::Matrix<Complex<R>>> out,
                   int sign)
{
    kernels::cpu::columns_c2c<R>(pieces(in), pieces(out), sign);
}
#if TESSERA_HAVE_CUDA
template <class R>
void columns_tiles_cuda(rt::CudaContext const& cuda, rt::Span<rt::Matrix<Complex<R> const>> in,
                        rt::Span<rt::Matrix<Complex<R>>> out, int sign)
{
    kernels::cuda::columns_c2c<R>(cuda, pieces(in), pieces(out), sign);
}
#endif
template <class R>
inline constexpr rt::PerfModel columns_model{by_real<R>("fft_cfft_columns", "fft_zfft_columns")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R> const>>, rt::Span<rt::Matrix<Complex<R>>>,
                         int>
    columns{
        .name = by_real<R>("cfft_columns", "zfft_columns"),
        .cpu = &columns_tiles<R>,
        .cuda = TESSERA_IF_CUDA(&columns_tiles_cuda<R>),
        .model = &columns_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<Complex<R> const>> const&,
               rt::Span<rt::Matrix<Complex<R>>> const& out,
               int const&) { return out.empty() ? 0.0 : transform_flops(rows_of(out), out[0].n); },
    };

// ---- stage 2, complex: the row DFTs of a tile row, in place ---------------------------------

template <class R> void rows_tiles(rt::Span<rt::Matrix<Complex<R>>> row, int sign)
{
    kernels::cpu::rows_c2c<R>(pieces(row), sign);
}
#if TESSERA_HAVE_CUDA
template <class R>
void rows_tiles_cuda(rt::CudaContext const& cuda, rt::Span<rt::Matrix<Complex<R>>> row, int sign)
{
    kernels::cuda::rows_c2c<R>(cuda, pieces(row), sign);
}
#endif
template <class R>
inline constexpr rt::PerfModel rows_model{by_real<R>("fft_cfft_rows", "fft_zfft_rows")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R>>>, int> rows{
    .name = by_real<R>("cfft_rows", "zfft_rows"),
    .cpu = &rows_tiles<R>,
    .cuda = TESSERA_IF_CUDA(&rows_tiles_cuda<R>),
    .model = &rows_model<R>,
    .flops =
        [](rt::Span<rt::Matrix<Complex<R>>> const& row, int const&) {
            int64_t n = 0;
            for (auto t : row) n += t.n;
            return row.empty() ? 0.0 : transform_flops(n, row[0].m);
        },
};

// ---- out of place on the cores: stage 1 into the digit-reversed order, stage 2 from it ------
// (digit_reversed.hpp). Stage 1 reads every tile of `in`, which is one array in memory; the
// columns of out's tile column are [d0, d0 + width) of n, in the order of n1 x (n / n1).

template <class R>
void columns_digit_reversed_tiles(rt::Span<rt::Matrix<Complex<R> const>> in,
                                  rt::Span<rt::Matrix<Complex<R>>> out, int sign, int64_t d0,
                                  int64_t n, int64_t n1)
{
    kernels::cpu::columns_c2c_digit_reversed<R>(in[0].ptr, in[0].ld, pieces(out), d0, n, n1, sign);
}
template <class R>
inline constexpr rt::PerfModel columns_digit_reversed_model{
    by_real<R>("fft_cfft_columns_digit_reversed", "fft_zfft_columns_digit_reversed")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R> const>>, rt::Span<rt::Matrix<Complex<R>>>,
                         int, int64_t, int64_t, int64_t>
    columns_digit_reversed{
        .name = by_real<R>("cfft_columns_digit_reversed", "zfft_columns_digit_reversed"),
        .where = rt::ArchMask::cpu,
        .cpu = &columns_digit_reversed_tiles<R>,
        .model = &columns_digit_reversed_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<Complex<R> const>> const&,
               rt::Span<rt::Matrix<Complex<R>>> const& out, int const&, int64_t const&,
               int64_t const&, int64_t const&) {
                return out.empty() ? 0.0 : transform_flops(rows_of(out), out[0].n);
            },
    };

template <class R>
void columns_r2c_digit_reversed_tiles(rt::Span<rt::Matrix<R const>> in,
                                      rt::Span<rt::Matrix<Complex<R>>> out, int64_t m, int64_t d0,
                                      int64_t n, int64_t n1)
{
    kernels::cpu::columns_r2c_digit_reversed<R>(m, in[0].ptr, in[0].ld, pieces(out), d0, n, n1);
}
template <class R>
inline constexpr rt::PerfModel columns_r2c_digit_reversed_model{
    by_real<R>("fft_sfft_r2c_columns_digit_reversed", "fft_dfft_r2c_columns_digit_reversed")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<R const>>, rt::Span<rt::Matrix<Complex<R>>>, int64_t,
                         int64_t, int64_t, int64_t>
    columns_r2c_digit_reversed{
        .name = by_real<R>("sfft_r2c_columns_digit_reversed", "dfft_r2c_columns_digit_reversed"),
        .where = rt::ArchMask::cpu,
        .cpu = &columns_r2c_digit_reversed_tiles<R>,
        .model = &columns_r2c_digit_reversed_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<R const>> const&, rt::Span<rt::Matrix<Complex<R>>> const& out,
               int64_t const& m, int64_t const&, int64_t const&,
               int64_t const&) { return out.empty() ? 0.0 : transform_flops(m, out[0].n, 0.5); },
    };

/// The flops of a tile row's transforms split n1 x (n / n1).
template <class R>
double split_row_flops(rt::Span<rt::Matrix<Complex<R>>> const& row, int const&, int64_t const&)
{
    int64_t n = 0;
    for (auto t : row) n += t.n;
    return row.empty() ? 0.0 : transform_flops(n, row[0].m);
}

/// A tile row (pieces of one array) from the digit-reversed order of n1 x (n / n1).
template <class R>
void rows_digit_reversed_tiles(rt::Span<rt::Matrix<Complex<R>>> row, int sign, int64_t n1)
{
    int64_t n = 0;
    for (auto t : row) n += t.n;
    kernels::cpu::rows_c2c_digit_reversed<R>(row[0].ptr, row[0].m, n, row[0].ld, sign, n1);
}
template <class R>
inline constexpr rt::PerfModel rows_digit_reversed_model{
    by_real<R>("fft_cfft_rows_digit_reversed", "fft_zfft_rows_digit_reversed")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R>>>, int, int64_t> rows_digit_reversed{
    .name = by_real<R>("cfft_rows_digit_reversed", "zfft_rows_digit_reversed"),
    .where = rt::ArchMask::cpu,
    .cpu = &rows_digit_reversed_tiles<R>,
    .model = &rows_digit_reversed_model<R>,
    .flops = &split_row_flops<R>,
};

/// The inverse's stages: a tile row into the digit-reversed order of (n / n1) x n1 (the split
/// without its permutation), then each tile column's real backward transforms, which read
/// their columns from all of `in` (one array) and leave it as it was.
template <class R>
void rows_into_digit_reversed_tiles(rt::Span<rt::Matrix<Complex<R>>> row, int sign, int64_t n1)
{
    int64_t n = 0;
    for (auto t : row) n += t.n;
    kernels::cpu::rows_c2c_split_unpermuted<R>(row[0].ptr, row[0].ld, row[0].ptr, row[0].m, n,
                                               row[0].ld, sign, n1);
}
template <class R>
inline constexpr rt::PerfModel rows_into_digit_reversed_model{
    by_real<R>("fft_cfft_rows_into_digit_reversed", "fft_zfft_rows_into_digit_reversed")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R>>>, int, int64_t> rows_into_digit_reversed{
    .name = by_real<R>("cfft_rows_into_digit_reversed", "zfft_rows_into_digit_reversed"),
    .where = rt::ArchMask::cpu,
    .cpu = &rows_into_digit_reversed_tiles<R>,
    .model = &rows_into_digit_reversed_model<R>,
    .flops = &split_row_flops<R>,
};

template <class R>
void columns_c2r_digit_reversed_tiles(rt::Span<rt::Matrix<Complex<R> const>> in,
                                      rt::Span<rt::Matrix<R>> out, int64_t m, int64_t d0, int64_t n,
                                      int64_t n1)
{
    kernels::cpu::columns_c2r_digit_reversed<R>(m, in[0].ptr, in[0].ld, pieces(out), d0, n, n1);
}
template <class R>
inline constexpr rt::PerfModel columns_c2r_digit_reversed_model{
    by_real<R>("fft_sfft_c2r_columns_digit_reversed", "fft_dfft_c2r_columns_digit_reversed")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R> const>>, rt::Span<rt::Matrix<R>>, int64_t,
                         int64_t, int64_t, int64_t>
    columns_c2r_digit_reversed{
        .name = by_real<R>("sfft_c2r_columns_digit_reversed", "dfft_c2r_columns_digit_reversed"),
        .where = rt::ArchMask::cpu,
        .cpu = &columns_c2r_digit_reversed_tiles<R>,
        .model = &columns_c2r_digit_reversed_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<Complex<R> const>> const&, rt::Span<rt::Matrix<R>> const& out,
               int64_t const& m, int64_t const&, int64_t const&,
               int64_t const&) { return out.empty() ? 0.0 : transform_flops(m, out[0].n, 0.5); },
    };

// ---- stage 2 on large square arrays: tiles transposed in place (transpose.hpp) ---------------

template <class R> void swap_transposed_tiles(rt::Matrix<Complex<R>> x, rt::Matrix<Complex<R>> y)
{
    kernels::cpu::swap_transposed(x.ptr, x.ld, y.ptr, y.ld, x.m, x.n);
}
#if TESSERA_HAVE_CUDA
template <class R>
void swap_transposed_tiles_cuda(rt::CudaContext const& cuda, rt::Matrix<Complex<R>> x,
                                rt::Matrix<Complex<R>> y)
{
    kernels::cuda::swap_transposed<R>(cuda, x.ptr, x.ld, y.ptr, y.ld, x.m, x.n);
}
#endif
template <class R>
inline constexpr rt::PerfModel swap_transposed_model{
    by_real<R>("fft_cfft_swap_transposed", "fft_zfft_swap_transposed")};
/// Tiles (i, j) and (j, i): each becomes the other's transpose.
template <class R>
inline const rt::Codelet<rt::Matrix<Complex<R>>, rt::Matrix<Complex<R>>> swap_transposed{
    .name = by_real<R>("cfft_swap_transposed", "zfft_swap_transposed"),
    .cpu = &swap_transposed_tiles<R>,
    .cuda = TESSERA_IF_CUDA(&swap_transposed_tiles_cuda<R>),
    .model = &swap_transposed_model<R>,
};

template <class R> void transpose_tile(rt::Matrix<Complex<R>> x)
{
    kernels::cpu::transpose_in_place(x.ptr, x.ld, x.m);
}
#if TESSERA_HAVE_CUDA
template <class R> void transpose_tile_cuda(rt::CudaContext const& cuda, rt::Matrix<Complex<R>> x)
{
    kernels::cuda::transpose_in_place<R>(cuda, x.ptr, x.ld, x.m);
}
#endif
template <class R>
inline constexpr rt::PerfModel transpose_model{
    by_real<R>("fft_cfft_transpose", "fft_zfft_transpose")};
/// A diagonal tile transposed in place.
template <class R>
inline const rt::Codelet<rt::Matrix<Complex<R>>> transpose{
    .name = by_real<R>("cfft_transpose", "zfft_transpose"),
    .cpu = &transpose_tile<R>,
    .cuda = TESSERA_IF_CUDA(&transpose_tile_cuda<R>),
    .model = &transpose_model<R>,
};

// ---- stage 1, real: m-point real columns to half-spectra, and back --------------------------

/// in (m x w reals) to out ((m/2 + 1) x w); in empty: in place in out's bytes.
template <class R>
void columns_r2c_tiles(rt::Span<rt::Matrix<R const>> in, rt::Span<rt::Matrix<Complex<R>>> out,
                       int64_t m)
{
    kernels::cpu::columns_r2c<R>(m, pieces(in), pieces(out));
}
#if TESSERA_HAVE_CUDA
template <class R>
void columns_r2c_tiles_cuda(rt::CudaContext const& cuda, rt::Span<rt::Matrix<R const>> in,
                            rt::Span<rt::Matrix<Complex<R>>> out, int64_t m)
{
    kernels::cuda::columns_r2c<R>(cuda, m, pieces(in), pieces(out));
}
#endif
template <class R>
inline constexpr rt::PerfModel columns_r2c_model{
    by_real<R>("fft_sfft_r2c_columns", "fft_dfft_r2c_columns")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<R const>>, rt::Span<rt::Matrix<Complex<R>>>, int64_t>
    columns_r2c{
        .name = by_real<R>("sfft_r2c_columns", "dfft_r2c_columns"),
        .cpu = &columns_r2c_tiles<R>,
        .cuda = TESSERA_IF_CUDA(&columns_r2c_tiles_cuda<R>),
        .model = &columns_r2c_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<R const>> const&, rt::Span<rt::Matrix<Complex<R>>> const& out,
               int64_t const& m) { return out.empty() ? 0.0 : transform_flops(m, out[0].n, 0.5); },
    };

/// in ((m/2 + 1) x w, destroyed) to out (m x w reals); out empty: in place in in's bytes.
template <class R>
void columns_c2r_tiles(rt::Span<rt::Matrix<Complex<R>>> in, rt::Span<rt::Matrix<R>> out, int64_t m)
{
    kernels::cpu::columns_c2r<R>(m, pieces(in), pieces(out));
}
#if TESSERA_HAVE_CUDA
template <class R>
void columns_c2r_tiles_cuda(rt::CudaContext const& cuda, rt::Span<rt::Matrix<Complex<R>>> in,
                            rt::Span<rt::Matrix<R>> out, int64_t m)
{
    kernels::cuda::columns_c2r<R>(cuda, m, pieces(in), pieces(out));
}
#endif
template <class R>
inline constexpr rt::PerfModel columns_c2r_model{
    by_real<R>("fft_sfft_c2r_columns", "fft_dfft_c2r_columns")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R>>>, rt::Span<rt::Matrix<R>>, int64_t>
    columns_c2r{
        .name = by_real<R>("sfft_c2r_columns", "dfft_c2r_columns"),
        .cpu = &columns_c2r_tiles<R>,
        .cuda = TESSERA_IF_CUDA(&columns_c2r_tiles_cuda<R>),
        .model = &columns_c2r_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<Complex<R>>> const& in, rt::Span<rt::Matrix<R>> const&,
               int64_t const& m) { return in.empty() ? 0.0 : transform_flops(m, in[0].n, 0.5); },
    };

// ---- the four-step 1D transform's two passes --------------------------------------------

template <class R> using TwiddlesRef = std::shared_ptr<kernels::cpu::Twiddles<R> const>;

/// out's tile row = the row DFTs of in's (which may be out), each element (j1, k2) then
/// multiplied by its twiddle w^(j1 k2); the tile row starts at row row0.
template <class R>
void rows_twiddled_tiles(rt::Span<rt::Matrix<Complex<R> const>> in,
                         rt::Span<rt::Matrix<Complex<R>>> out, int sign, int64_t row0,
                         TwiddlesRef<R> w)
{
    kernels::cpu::rows_c2c_twiddled<R>(pieces(in), pieces(out), sign, row0, *w);
}
#if TESSERA_HAVE_CUDA
template <class R>
void rows_twiddled_tiles_cuda(rt::CudaContext const& cuda,
                              rt::Span<rt::Matrix<Complex<R> const>> in,
                              rt::Span<rt::Matrix<Complex<R>>> out, int sign, int64_t row0,
                              TwiddlesRef<R> w)
{
    kernels::cuda::rows_c2c_twiddled<R>(cuda, pieces(in), pieces(out), sign, row0, w->n());
}
#endif
template <class R>
inline constexpr rt::PerfModel rows_twiddled_model{
    by_real<R>("fft_cfft_rows_twiddled", "fft_zfft_rows_twiddled")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R> const>>, rt::Span<rt::Matrix<Complex<R>>>,
                         int, int64_t, TwiddlesRef<R>>
    rows_twiddled{
        .name = by_real<R>("cfft_rows_twiddled", "zfft_rows_twiddled"),
        .cpu = &rows_twiddled_tiles<R>,
        .cuda = TESSERA_IF_CUDA(&rows_twiddled_tiles_cuda<R>),
        .model = &rows_twiddled_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<Complex<R> const>> const&,
               rt::Span<rt::Matrix<Complex<R>>> const& out, int const&, int64_t const&,
               TwiddlesRef<R> const&) {
                int64_t n = 0;
                for (auto t : out) n += t.n;
                return out.empty()
                           ? 0.0
                           : transform_flops(n, out[0].m) + 6.0 * double(n) * double(out[0].m);
            },
    };

/// The column DFTs of a tile column of A (in), written transposed into the tile row of X^T
/// that holds them (out).
template <class R>
void columns_transposed_tiles(rt::Span<rt::Matrix<Complex<R> const>> in,
                              rt::Span<rt::Matrix<Complex<R>>> out, int sign)
{
    kernels::cpu::columns_c2c_transposed<R>(pieces(in), pieces(out), sign);
}
#if TESSERA_HAVE_CUDA
template <class R>
void columns_transposed_tiles_cuda(rt::CudaContext const& cuda,
                                   rt::Span<rt::Matrix<Complex<R> const>> in,
                                   rt::Span<rt::Matrix<Complex<R>>> out, int sign)
{
    kernels::cuda::columns_c2c_transposed<R>(cuda, pieces(in), pieces(out), sign);
}
#endif
template <class R>
inline constexpr rt::PerfModel columns_transposed_model{
    by_real<R>("fft_cfft_columns_transposed", "fft_zfft_columns_transposed")};
template <class R>
inline const rt::Codelet<rt::Span<rt::Matrix<Complex<R> const>>, rt::Span<rt::Matrix<Complex<R>>>,
                         int>
    columns_transposed{
        .name = by_real<R>("cfft_columns_transposed", "zfft_columns_transposed"),
        .cpu = &columns_transposed_tiles<R>,
        .cuda = TESSERA_IF_CUDA(&columns_transposed_tiles_cuda<R>),
        .model = &columns_transposed_model<R>,
        .flops =
            [](rt::Span<rt::Matrix<Complex<R> const>> const& in,
               rt::Span<rt::Matrix<Complex<R>>> const&,
               int const&) { return in.empty() ? 0.0 : transform_flops(rows_of(in), in[0].n); },
    };

}  // namespace tessera::fft::cl
