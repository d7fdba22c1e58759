// Norms: one task per tile adds the tile's part into an accumulator through a REDUX access
// (column or row sums, a maximum, or LAPACK's (scale, ssq) pair); the runtime merges the
// workers' private copies, and a last task turns the accumulator into the norm.
#include <tessera/la/norm.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

#include <tessera/error.hpp>

#include <memory>

namespace tessera::inline la {

template <Scalar T>
void norm_async(Norm kind, TileMatrix<T> const& A, real_t<T>* value, Sequence& s)
{
    using R = real_t<T>;
    require(value != nullptr, "norm_async: value is null");
    require(detail::is_norm(kind),
            "norm: kind must be Norm::one, Norm::inf, Norm::max or Norm::fro");
    const auto call = detail::begin_call<T>(s, "norm", {{"A", A}});
    if (s.submits_nothing())
        return;  // as every call on a failed sequence: nothing submitted, nothing written
    if (A.m() == 0 || A.n() == 0) {
        *value = R(0);
        return;
    }
    const int64_t length = kind == Norm::one   ? A.n()
                           : kind == Norm::inf ? A.m()
                           : kind == Norm::max ? 1
                                               : 2;
    using Accumulator = rt::Handle<rt::Vector<R>>;
    auto acc = std::make_shared<Accumulator>(
        Accumulator::temporary(A.runtime(), rt::Vector<R>{nullptr, length}));
    auto const& merge = kind == Norm::max   ? cl::norm_max<R>
                        : kind == Norm::fro ? cl::norm_ssq<R>
                                            : cl::norm_add<R>;
    acc->set_reduction(cl::norm_zero<R>, merge);
    s.keep_alive(acc);  // unregistered once the sequence's tasks are done
    s.submit(cl::norm_zero<R>, write(*acc));
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) {
            const int64_t offset = kind == Norm::one   ? j * A.nb()
                                   : kind == Norm::inf ? i * A.nb()
                                                       : 0;
            s.submit(cl::norm<T>, rt::value(kind), read(A(i, j)), reduce(*acc), rt::value(offset));
        }
    s.submit(cl::norm_finish_task<R>, rt::value(kind), read(*acc), rt::value(value));
}

template <Scalar T> real_t<T> norm(Norm kind, TileMatrix<T> const& A)
{
    require(detail::is_norm(kind),
            "norm: kind must be Norm::one, Norm::inf, Norm::max or Norm::fro");
    real_t<T> value = 0;
    if (A.m() == 0 || A.n() == 0) return value;  // also a matrix with no runtime
    Sequence s{A.runtime()};
    norm_async(kind, A, &value, s);
    s.wait();
    return value;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void norm_async(Norm, TileMatrix<T> const&, real_t<T>*, Sequence&);                   \
    template real_t<T> norm(Norm, TileMatrix<T> const&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
