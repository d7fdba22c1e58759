// The four-step 1D transform as tasks (see four_step.hpp).
#include "fft/algorithms/four_step.hpp"

#include "fft/codelets/fft.hpp"
#include "linalg/algorithms/operands.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace tessera::fft::detail {

int64_t four_step_rows(int64_t n)
{
    int64_t best = 1;
    for (int64_t d = 1; d * d <= n; ++d)
        if (n % d == 0) best = d;
    return best >= 32 ? best : 0;
}

int64_t four_step_scratch_ld(int64_t n1, std::size_t element)
{
    return n1 + int64_t(std::max<std::size_t>(1, 32 / element));
}

int64_t four_step_scratch_elements(int64_t n, std::size_t element)
{
    const int64_t n1 = four_step_rows(n);
    return n1 == 0 ? 0 : four_step_scratch_ld(n1, element) * (n / n1);
}

template <Real R>
void four_step_async(Sign sign, TileMatrix<std::complex<R>> const& A,
                     TileMatrix<std::complex<R>>& T, TileMatrix<std::complex<R>>& Xt, Sequence& s)
{
    using C = std::complex<R>;
    require(T.m() == A.m() && T.n() == A.n() && Xt.m() == A.n() && Xt.n() == A.m() &&
                T.nb() == A.nb() && Xt.nb() == A.nb(),
            "dft_1d: T must have A's shape and Xt its transpose's, all with A's tiles");
    const bool in_place = &A == &T;
    const auto call =
        in_place
            ? la::detail::begin_call<C>(s, "dft_1d", {{"T", T, true}, {"Xt", Xt, true}})
            : la::detail::begin_call<C>(s, "dft_1d", {{"A", A}, {"T", T, true}, {"Xt", Xt, true}});
    const int64_t n = A.m() * A.n();
    if (n == 0) return;
    const auto w = kernels::cpu::shared_twiddles<R>(n, int(sign));
    using Tile = typename TileMatrix<C>::Tile;
    std::vector<Tile const*> from;
    std::vector<Tile*> to;
    for (int64_t i = 0; i < A.mt(); ++i) {
        from.clear();
        to.clear();
        for (int64_t j = 0; j < A.nt(); ++j) {
            from.push_back(&A(i, j));
            to.push_back(&T(i, j));
        }
        if (in_place)
            s.submit(cl::rows_twiddled<R>, rt::read_all(from), rt::readwrite_all(to),
                     rt::value(int(sign)), rt::value(i * A.nb()), rt::value(cl::TwiddlesRef<R>(w)));
        else
            s.submit(cl::rows_twiddled<R>, rt::read_all(from), rt::write_all(to),
                     rt::value(int(sign)), rt::value(i * A.nb()), rt::value(cl::TwiddlesRef<R>(w)));
    }
    for (int64_t j = 0; j < T.nt(); ++j) {
        from.clear();
        to.clear();
        for (int64_t i = 0; i < T.mt(); ++i) {
            from.push_back(&T(i, j));
            to.push_back(&Xt(j, i));
        }
        s.submit(cl::columns_transposed<R>, rt::read_all(from), rt::write_all(to),
                 rt::value(int(sign)));
    }
}

template void four_step_async<float>(Sign, TileMatrix<std::complex<float>> const&,
                                     TileMatrix<std::complex<float>>&,
                                     TileMatrix<std::complex<float>>&, Sequence&);
template void four_step_async<double>(Sign, TileMatrix<std::complex<double>> const&,
                                      TileMatrix<std::complex<double>>&,
                                      TileMatrix<std::complex<double>>&, Sequence&);

}  // namespace tessera::fft::detail
