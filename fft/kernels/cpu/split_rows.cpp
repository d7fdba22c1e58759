// Row transforms split across the columns (see split_rows.hpp).
#include "fft/kernels/cpu/split_rows.hpp"

#include "fft/kernels/cpu/fftw_plans.hpp"
#include "fft/kernels/cpu/memory.hpp"
#include "fft/kernels/cpu/twiddles.hpp"

#include <climits>
#include <cstring>
#include <vector>

namespace tessera::fft::kernels::cpu {
namespace {

constexpr int64_t min_factor = 8, min_rows = 64, min_points = 256;

}  // namespace

int64_t column_split(int64_t h, int64_t n, int64_t ld)
{
    if (h < min_rows || n < min_points) return 0;
    int64_t n1 = 1;
    for (int64_t d = 2; d * d <= n; ++d)
        if (n % d == 0) n1 = d;
    // n1 <= sqrt(n) <= n / n1: the first check bounds both factors
    if (n1 < min_factor || n1 * ld > INT_MAX) return 0;
    return n1;
}

template <class R>
void rows_c2c_split(std::complex<R>* a, int64_t h, int64_t n, int64_t ld, int sign, int64_t n1,
                    ColumnFinish<R> const& finish)
{
    rows_c2c_split<R>(a, ld, a, h, n, ld, sign, n1, finish);
}

template <class R>
void rows_c2c_split_unpermuted(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a,
                               int64_t h, int64_t n, int64_t ld, int sign, int64_t n1)
{
    const int64_t n2 = n / n1;
    const auto column = [&](int64_t c) { return a + c * ld; };
    const std::size_t bytes = std::size_t(h) * sizeof(std::complex<R>);
    const auto table = shared_twiddles<R>(n, sign);
    Twiddles<R> const& w = *table;

    // 1. along k2 (stride n1 ld), then the twiddles w^(k1 f2) (1 where k1 or f2 is 0); a
    // column copied from `from` just before its transform, while the batch is in cache
    const Batch along = rows_batch(n2, h, n1 * ld, sign);
    for (int64_t k1 = 0; k1 < n1; ++k1) {
        for (int64_t k2 = 0; from != a && k2 < n2; ++k2)
            std::memcpy(column(k1 + n1 * k2), from + (k1 + n1 * k2) * ld_from, bytes);
        execute<R>(along, column(k1), column(k1));
        for (int64_t f2 = 1; k1 > 0 && f2 < n2; ++f2)
            scale_column(column(k1 + n1 * f2), h, w(k1 * f2));
    }

    // 2. along k1: the n1 adjacent columns of each f2
    const Batch across = rows_batch(n1, h, ld, sign);
    for (int64_t f2 = 0; f2 < n2; ++f2) execute<R>(across, column(n1 * f2), column(n1 * f2));
}

template <class R>
void rows_c2c_split(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a, int64_t h,
                    int64_t n, int64_t ld, int sign, int64_t n1, ColumnFinish<R> const& finish)
{
    using C = std::complex<R>;
    const int64_t n2 = n / n1;
    const auto column = [&](int64_t c) { return a + c * ld; };
    const std::size_t bytes = std::size_t(h) * sizeof(C);
    rows_c2c_split_unpermuted<R>(from, ld_from, a, h, n, ld, sign, n1);

    // 3. X(d), d = f2 + n2 f1, is in column source(d) = f1 + n1 f2: each cycle of the
    // permutation is walked once, one column held aside, each column finished as it lands
    const auto source = [&](int64_t d) { return d / n2 + n1 * (d % n2); };
    const auto place = [&](int64_t d, C const* x) {
        if (x != column(d)) std::memcpy(column(d), x, bytes);
        if (finish) finish(column(d), d);
    };
    C* held = thread_buffer<C>(std::size_t(h));
    std::vector<bool> placed(std::size_t(n), false);
    for (int64_t start = 0; start < n; ++start) {
        if (placed[std::size_t(start)]) continue;
        if (source(start) == start) {
            place(start, column(start));
            continue;
        }
        std::memcpy(held, column(start), bytes);
        int64_t hole = start;
        for (int64_t s = source(hole); s != start; s = source(hole)) {
            place(hole, column(s));
            placed[std::size_t(hole)] = true;
            hole = s;
        }
        place(hole, held);
        placed[std::size_t(hole)] = true;
    }
}

#define TESSERA_INSTANTIATE(R)                                                                     \
    template void rows_c2c_split<R>(std::complex<R>*, int64_t, int64_t, int64_t, int, int64_t,     \
                                    ColumnFinish<R> const&);                                       \
    template void rows_c2c_split<R>(std::complex<R> const*, int64_t, std::complex<R>*, int64_t,    \
                                    int64_t, int64_t, int, int64_t, ColumnFinish<R> const&);       \
    template void rows_c2c_split_unpermuted<R>(std::complex<R> const*, int64_t, std::complex<R>*,  \
                                               int64_t, int64_t, int64_t, int, int64_t);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::fft::kernels::cpu
