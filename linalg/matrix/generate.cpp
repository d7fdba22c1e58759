// Generators: one task per tile, each entry a function of the seed and its global position.
#include <tessera/la/generate.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

#include <limits>
#include <string>

namespace tessera::inline la {

template <Scalar T> void generate_random_async(TileMatrix<T>& A, uint64_t seed, Sequence& s)
{
    const auto call = detail::begin_call<T>(s, "generate_random", {{"A", A}});
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i)
            s.submit(cl::random<T>, write(A(i, j)),
                     rt::value(cl::TilePlace{i * A.nb(), j * A.nb(), A.m(), seed}));
}

namespace {
template <Scalar T> void check_hpd(TileMatrix<T> const& A, double kappa)
{
    require(A.m() == A.n(), "generate_hpd: A is " + std::to_string(A.m()) + " x " +
                                std::to_string(A.n()) + ", not square");
    require(kappa >= 1, "generate_hpd: kappa = " + std::to_string(kappa) + " must be >= 1");
    // Rounded to T, the eigenvalues move by about eps: 1/kappa must stay well above it.
    const double limit = 1 / double(std::numeric_limits<real_t<T>>::epsilon());
    require(kappa < limit, "generate_hpd: kappa = " + std::to_string(kappa) +
                               " must be below 1/eps = " + std::to_string(limit) +
                               " of the precision");
    require(A.n() != 1 || kappa == 1, "generate_hpd: kappa = " + std::to_string(kappa) +
                                          ": a 1 x 1 matrix has condition number 1");
}
}  // namespace

template <Scalar T>
void generate_hpd_async(TileMatrix<T>& A, double kappa, uint64_t seed, Sequence& s)
{
    check_hpd(A, kappa);
    const auto call = detail::begin_call<T>(s, "generate_hpd", {{"A", A}});
    // The two sums every entry needs, s = v^H v and t = v^H D v: O(n) here, once.
    cl::HpdShape h{A.n(), kappa, 0, 0, seed};
    for (int64_t k = 0; k < A.n(); ++k) {
        const double v2 = std::norm(std::complex<double>(cl::hpd_vector_entry<T>(h, k)));
        h.s += v2;
        h.t += cl::hpd_eigenvalue(h, k) * v2;
    }
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i)
            s.submit(cl::hpd<T>, write(A(i, j)), rt::value(i * A.nb()), rt::value(j * A.nb()),
                     rt::value(h));
}

template <Scalar T> void generate_random(TileMatrix<T>& A, uint64_t seed)
{
    if (!A) return;
    synchronously(A.runtime(), [&](Sequence& s) { generate_random_async(A, seed, s); });
}

template <Scalar T> void generate_hpd(TileMatrix<T>& A, double kappa, uint64_t seed)
{
    check_hpd(A, kappa);  // also when A is empty
    if (!A) return;
    synchronously(A.runtime(), [&](Sequence& s) { generate_hpd_async(A, kappa, seed, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void generate_random_async(TileMatrix<T>&, uint64_t, Sequence&);                      \
    template void generate_hpd_async(TileMatrix<T>&, double, uint64_t, Sequence&);                 \
    template void generate_random(TileMatrix<T>&, uint64_t);                                       \
    template void generate_hpd(TileMatrix<T>&, double, uint64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
