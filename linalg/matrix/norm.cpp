// Norms: each tile's part computed by a task into a small registered vector, the parts
// combined here once the tasks are done (column or row sums added up, maxima taken, the
// Frobenius (scale, ssq) pairs merged as LAPACK's lassq does).
#include <tessera/la/norm.hpp>

#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

#include <tessera/la/sequence.hpp>

#include <cmath>
#include <vector>

namespace tessera::inline la {

template <Scalar T>
real_t<T> norm(Norm kind, TileMatrix<T> const& A)
{
    using R = real_t<T>;
    if (A.m() == 0 || A.n() == 0) return R(0);
    const int64_t mt = A.mt(), nt = A.nt();
    // Tile (i, j) writes parts[(i + j mt) stride ...]: room for a tile's column or row sums,
    // or for the (scale, ssq) pair.
    const int64_t stride = std::max<int64_t>(A.nb(), 2);
    std::vector<R> parts(std::size_t(mt * nt * stride), R(0));
    {
        Sequence s{A.runtime()};
        std::vector<rt::Handle<rt::Vector<R>>> out;
        out.reserve(std::size_t(mt * nt));
        for (int64_t j = 0; j < nt; ++j)
            for (int64_t i = 0; i < mt; ++i) {
                const int64_t len = kind == Norm::one ? A.tile_n(j) : kind == Norm::inf ? A.tile_m(i) : 2;
                out.emplace_back(A.runtime(), rt::Vector<R>{parts.data() + (i + j * mt) * stride, len});
                s.submit(cl::norm<T>, rt::value(kind), read(A(i, j)), write(out.back()));
            }
        s.wait();
    }  // unregistered: the parts are back in `parts`
    auto part = [&](int64_t i, int64_t j) { return parts.data() + (i + j * mt) * stride; };
    R result = 0;
    switch (kind) {
        case Norm::one:
        case Norm::inf: {
            // one: sum over tile rows of each column's sums; inf: over tile columns of each row's.
            const int64_t outer = kind == Norm::one ? nt : mt, inner = kind == Norm::one ? mt : nt;
            for (int64_t o = 0; o < outer; ++o) {
                const int64_t len = kind == Norm::one ? A.tile_n(o) : A.tile_m(o);
                for (int64_t k = 0; k < len; ++k) {
                    R sum = 0;
                    for (int64_t p = 0; p < inner; ++p) sum += (kind == Norm::one ? part(p, o) : part(o, p))[k];
                    if (sum > result || std::isnan(sum)) result = sum;
                }
            }
            break;
        }
        case Norm::max:
            for (int64_t j = 0; j < nt; ++j)
                for (int64_t i = 0; i < mt; ++i)
                    if (part(i, j)[0] > result || std::isnan(part(i, j)[0])) result = part(i, j)[0];
            break;
        case Norm::fro: {
            R scale = 0, ssq = 1;
            for (int64_t j = 0; j < nt; ++j)
                for (int64_t i = 0; i < mt; ++i) {
                    const R sc = part(i, j)[0], sq = part(i, j)[1];
                    // An all-zero tile adds nothing; a NaN in a tile of zeros leaves its scale 0 with
                    // ssq NaN, which must reach the result (as in lange).
                    if (sc == 0 && !std::isnan(sq)) continue;
                    if (scale < sc) {
                        ssq = sq + ssq * (scale / sc) * (scale / sc);
                        scale = sc;
                    } else {
                        ssq += sq * (sc / scale) * (sc / scale);
                    }
                }
            result = scale * std::sqrt(ssq);
            break;
        }
    }
    return result;
}

#define TESSERA_INSTANTIATE(T) template real_t<T> norm(Norm, TileMatrix<T> const&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
