// The stages of a 2D transform on tiles (see tile_fft.hpp), over FFTW's batched plans.
#include "fft/kernels/cpu/tile_fft.hpp"

#include "fft/kernels/cpu/fftw_plans.hpp"
#include "fft/kernels/cpu/memory.hpp"
#include "fft/kernels/cpu/split_rows.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace tessera::fft::kernels::cpu {
namespace {

template <class R> using C = std::complex<R>;

template <class T> int64_t total_rows(std::span<TilePiece<T> const> t)
{
    int64_t m = 0;
    for (auto const& p : t) m += p.m;
    return m;
}

/// Columns [j0, j0 + cols) of the stacked tiles into buf (column j at buf + (j - j0) ldb).
template <class T, class B>
void gather_columns(std::span<TilePiece<T> const> tiles, int64_t j0, int64_t cols, B* buf,
                    int64_t ldb)
{
    int64_t row = 0;
    for (auto const& t : tiles) {
        for (int64_t j = 0; j < cols; ++j)
            std::memcpy(reinterpret_cast<char*>(buf + j * ldb) + row * sizeof(T),
                        t.ptr + (j0 + j) * t.ld, t.m * sizeof(T));
        row += t.m;
    }
}

/// The inverse of gather_columns.
template <class T, class B>
void scatter_columns(B const* buf, int64_t ldb, std::span<TilePiece<T> const> tiles, int64_t j0,
                     int64_t cols)
{
    int64_t row = 0;
    for (auto const& t : tiles) {
        for (int64_t j = 0; j < cols; ++j)
            std::memcpy(t.ptr + (j0 + j) * t.ld,
                        reinterpret_cast<char const*>(buf + j * ldb) + row * sizeof(T),
                        t.m * sizeof(T));
        row += t.m;
    }
}

template <class T> std::span<TilePiece<T const> const> as_const(std::span<TilePiece<T> const> t)
{
    return {reinterpret_cast<TilePiece<T const> const*>(t.data()), t.size()};
}

int as_int(int64_t v)
{
    return int(v);
}  // sizes were checked against INT_MAX at the API

}  // namespace

template <class R>
void columns_c2c(std::span<TilePiece<C<R> const> const> in, std::span<TilePiece<C<R>> const> out,
                 int sign)
{
    if (out.empty() || out[0].n == 0) return;
    const int64_t m = total_rows(out), w = out[0].n;
    if (stacked_in_one_array(in) && stacked_in_one_array(out)) {
        const Batch b{.kind = Kind::c2c,
                      .n = as_int(m),
                      .howmany = as_int(w),
                      .istride = 1,
                      .idist = as_int(in[0].ld),
                      .ostride = 1,
                      .odist = as_int(out[0].ld),
                      .sign = sign};
        execute<R>(b, const_cast<C<R>*>(in[0].ptr), out[0].ptr);
        return;
    }
    const int64_t batch =
        std::clamp<int64_t>(gather_buffer_elements / std::max<int64_t>(m, 1), 1, w);
    C<R>* buf = thread_buffer<C<R>>(std::size_t(m * batch));
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        gather_columns(in, j0, cols, buf, m);
        const Batch b{.kind = Kind::c2c,
                      .n = as_int(m),
                      .howmany = as_int(cols),
                      .istride = 1,
                      .idist = as_int(m),
                      .ostride = 1,
                      .odist = as_int(m),
                      .sign = sign};
        execute<R>(b, buf, buf);
        scatter_columns(buf, m, out, j0, cols);
    }
}

template <class R> void rows_c2c(std::span<TilePiece<C<R>> const> row, int sign)
{
    if (row.empty() || row[0].m == 0) return;
    const int64_t h = row[0].m;
    int64_t n = 0;
    for (auto const& t : row) n += t.n;
    if (side_by_side_in_one_array(row)) {
        // pieces of one array: the rows split across the columns where that pays; else FFTW
        // transforms them where they are when its plan was measured (its estimated plans of
        // such strided batches are slow, and the gather below beats them)
        if (const int64_t n1 = column_split(h, n, row[0].ld); n1 > 0) {
            rows_c2c_split(row[0].ptr, h, n, row[0].ld, sign, n1);
            return;
        }
        const int ld = as_int(row[0].ld);
        const Batch b = rows_batch(n, h, ld, sign);
        if (measured<R>(b, row[0].ptr, row[0].ptr)) {
            execute<R>(b, row[0].ptr, row[0].ptr);
            return;
        }
    }
    // A batch of rows as buf[k rows + r]: the copies move contiguous pieces of the tiles'
    // columns, and FFTW transforms the rows with unit distance between them (its vector loops).
    // 16 rows: the fastest of 8 to 64 for 256 to 2048 points, measured or estimated.
    const int64_t batch = std::min<int64_t>(16, h);
    C<R>* buf = thread_buffer<C<R>>(std::size_t(n * batch));
    for (int64_t r0 = 0; r0 < h; r0 += batch) {
        const int64_t rows = std::min(batch, h - r0);
        int64_t k = 0;
        for (auto const& t : row)
            for (int64_t c = 0; c < t.n; ++c, ++k)
                std::memcpy(buf + k * rows, t.ptr + c * t.ld + r0, rows * sizeof(C<R>));
        const Batch b = rows_batch(n, rows, rows, sign);
        execute<R>(b, buf, buf);
        k = 0;
        for (auto const& t : row)
            for (int64_t c = 0; c < t.n; ++c, ++k)
                std::memcpy(t.ptr + c * t.ld + r0, buf + k * rows, rows * sizeof(C<R>));
    }
}

template <class R>
void columns_r2c(int64_t m, std::span<TilePiece<R const> const> in,
                 std::span<TilePiece<C<R>> const> out)
{
    if (out.empty() || out[0].n == 0 || m == 0) return;
    const int64_t half = m / 2 + 1, w = out[0].n;
    const bool in_place = in.empty();
    if (stacked_in_one_array(out) && (in_place || stacked_in_one_array(in))) {
        const int64_t ldo = out[0].ld;
        R* src = in_place ? reinterpret_cast<R*>(out[0].ptr) : const_cast<R*>(in[0].ptr);
        const Batch b{.kind = Kind::r2c,
                      .n = as_int(m),
                      .howmany = as_int(w),
                      .istride = 1,
                      .idist = as_int(in_place ? 2 * ldo : in[0].ld),
                      .ostride = 1,
                      .odist = as_int(ldo)};
        execute<R>(b, src, out[0].ptr);
        return;
    }
    const int64_t batch = std::clamp<int64_t>(gather_buffer_elements / half, 1, w);
    C<R>* buf = thread_buffer<C<R>>(std::size_t(half * batch));
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        if (in_place)
            gather_columns(as_const(out), j0, cols, buf, half);
        else
            gather_columns(in, j0, cols, reinterpret_cast<R*>(buf), 2 * half);
        const Batch b{.kind = Kind::r2c,
                      .n = as_int(m),
                      .howmany = as_int(cols),
                      .istride = 1,
                      .idist = as_int(2 * half),
                      .ostride = 1,
                      .odist = as_int(half)};
        execute<R>(b, buf, buf);
        scatter_columns(buf, half, out, j0, cols);
    }
}

template <class R>
void columns_c2r(int64_t m, std::span<TilePiece<C<R>> const> in, std::span<TilePiece<R> const> out)
{
    if (in.empty() || in[0].n == 0 || m == 0) return;
    const int64_t half = m / 2 + 1, w = in[0].n;
    const bool in_place = out.empty();
    if (stacked_in_one_array(in) && (in_place || stacked_in_one_array(out))) {
        const int64_t ldi = in[0].ld;
        R* dst = in_place ? reinterpret_cast<R*>(in[0].ptr) : out[0].ptr;
        const Batch b{.kind = Kind::c2r,
                      .n = as_int(m),
                      .howmany = as_int(w),
                      .istride = 1,
                      .idist = as_int(ldi),
                      .ostride = 1,
                      .odist = as_int(in_place ? 2 * ldi : out[0].ld)};
        execute<R>(b, in[0].ptr, dst);
        return;
    }
    const int64_t batch = std::clamp<int64_t>(gather_buffer_elements / half, 1, w);
    C<R>* buf = thread_buffer<C<R>>(std::size_t(half * batch));
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        gather_columns(as_const(in), j0, cols, buf, half);
        const Batch b{.kind = Kind::c2r,
                      .n = as_int(m),
                      .howmany = as_int(cols),
                      .istride = 1,
                      .idist = as_int(half),
                      .ostride = 1,
                      .odist = as_int(2 * half)};
        execute<R>(b, buf, buf);
        if (in_place)
            scatter_columns(buf, half, in, j0, cols);
        else
            scatter_columns(reinterpret_cast<R const*>(buf), 2 * half, out, j0, cols);
    }
}

#define TESSERA_INSTANTIATE(R)                                                                     \
    template void columns_c2c<R>(std::span<TilePiece<C<R> const> const>,                           \
                                 std::span<TilePiece<C<R>> const>, int);                           \
    template void rows_c2c<R>(std::span<TilePiece<C<R>> const>, int);                              \
    template void columns_r2c<R>(int64_t, std::span<TilePiece<R const> const>,                     \
                                 std::span<TilePiece<C<R>> const>);                                \
    template void columns_c2r<R>(int64_t, std::span<TilePiece<C<R>> const>,                        \
                                 std::span<TilePiece<R> const>);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::fft::kernels::cpu
