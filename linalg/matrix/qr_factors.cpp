// QrFactors: the T factors of the tile QR, ib x kb per elimination, in one allocation (pinned
// when the runtime has GPUs) holding only the tiles on and below the diagonal of the first
// min(mt, nt) tile columns, and the tree's domain size.
#include <tessera/la/qr.hpp>

#include <tessera/error.hpp>
#include <tessera/rt/memory.hpp>

#include "linalg/instantiate.hpp"

#include <algorithm>
#include <string>

namespace tessera::inline la {

namespace {
int64_t tiles_along(int64_t extent, int64_t nb)
{
    return extent == 0 ? 0 : 1 + (extent - 1) / nb;
}

/// Tile rows per flat domain. A flat tree's parallelism at step k is its trailing tile
/// columns (each column's updates form one chain through the pivot's tile): enough when A
/// has more tile columns than workers to feed twice. A taller A gets as many domains as
/// make up the difference, each a chain of its own, merged by a binary tree.
int64_t automatic_domain(int64_t mt, int64_t nt, unsigned workers)
{
    const int64_t wanted = 2 * int64_t(std::max(1u, workers));
    if (mt <= 1 || nt >= wanted || mt <= 2 * nt) return std::max<int64_t>(mt, 1);
    const int64_t domains = std::min(mt, (wanted + nt - 1) / std::max<int64_t>(nt, 1));
    return (mt + domains - 1) / domains;
}
}  // namespace

template <Scalar T> QrFactors<T>::Storage::~Storage()
{
    square.clear();  // unregistered first: waits for their tasks
    triangle.clear();
    rt::free_pinned(buffer);
}

template <Scalar T>
QrFactors<T>::QrFactors(TileMatrix<T> const& A, QrTree tree, int64_t ib)
    : QrFactors(A.runtime(), A.m(), A.n(), A.nb(), tree, ib)
{}

template <Scalar T>
QrFactors<T> QrFactors<T>::for_lq(TileMatrix<T> const& A, QrTree tree, int64_t ib)
{
    return QrFactors(A.runtime(), A.n(), A.m(), A.nb(), tree, ib);
}

template <Scalar T>
QrFactors<T>::QrFactors(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb, QrTree tree, int64_t ib)
{
    require(ib >= 0, "QrFactors: ib = " + std::to_string(ib) + " must be >= 0 (0: automatic)");
    auto s = std::make_shared<Storage>();
    s->rt = &rt;
    s->m = m;
    s->n = n;
    s->nb = nb;
    s->mt = tiles_along(m, nb);
    s->kt = std::min(s->mt, tiles_along(n, nb));
    s->ib = ib > 0 ? std::min(ib, s->nb) : std::min<int64_t>(32, s->nb);
    s->domain = tree == QrTree::flat ? std::max<int64_t>(s->mt, 1)
                : tree == QrTree::binary
                    ? 1
                    : automatic_domain(s->mt, tiles_along(n, nb), s->rt->worker_count());
    const bool merges = s->domain < s->mt;
    const int64_t count =
        s->kt * s->mt - s->kt * (s->kt - 1) / 2;  // tiles on and below the diagonal
    const int64_t per_tile = s->ib * s->nb;
    const int64_t factors = count * (merges ? 2 : 1);
    if (factors > 0)
        s->buffer = static_cast<T*>(
            s->rt->allocate_for_transfers(std::size_t(factors * per_tile) * sizeof(T)));
    T* next = s->buffer;
    auto add = [&](std::vector<Tile>& list) {
        list.reserve(std::size_t(count));
        for (int64_t k = 0; k < s->kt; ++k)
            for (int64_t i = k; i < s->mt; ++i) {
                const int64_t kb = std::min(s->nb, s->n - k * s->nb);
                list.emplace_back(*s->rt, rt::Matrix<T>{next, s->ib, kb, s->ib});
                next += per_tile;
            }
    };
    add(s->square);
    if (merges) add(s->triangle);
    s_ = std::move(s);
}

template <Scalar T> bool QrFactors<T>::fits(int64_t m, int64_t n, int64_t nb) const noexcept
{
    return s_ && s_->m == m && s_->n == n && s_->nb == nb;
}

template <Scalar T> rt::Runtime& QrFactors<T>::runtime() const
{
    require(s_ != nullptr, "QrFactors: no runtime (a default-constructed QrFactors)");
    return *s_->rt;
}

#define TESSERA_INSTANTIATE(T) template class QrFactors<T>;
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
