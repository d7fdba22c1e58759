// TileMatrix: the tile storage and its registration. In the matrix's own storage, tile (i, j)
// is contiguous (ld = its row count) and the tiles follow each other in column-major tile
// order, so that the whole matrix is one allocation of exactly m n elements (pinned when the
// runtime has GPUs).
#include <tessera/la/tile_matrix.hpp>

#include <tessera/error.hpp>
#include <tessera/rt/memory.hpp>

#include <limits>
#include <string>

namespace tessera::inline la {

namespace {
// ceil(extent / nb), without extent + nb - 1, which overflows for nb near INT64_MAX
int64_t tiles_along(int64_t extent, int64_t nb) { return extent == 0 ? 0 : 1 + (extent - 1) / nb; }
}  // namespace

template <Scalar T>
TileMatrix<T>::Storage::~Storage()
{
    tiles.clear();  // unregisters every tile: waits for its tasks, data back in `buffer`
    rt::free_pinned(buffer);
}

template <Scalar T>
TileMatrix<T>::TileMatrix(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb)
{
    require(m >= 0, "TileMatrix: m = " + std::to_string(m) + " must be >= 0");
    require(n >= 0, "TileMatrix: n = " + std::to_string(n) + " must be >= 0");
    require(nb >= 1, "TileMatrix: nb = " + std::to_string(nb) + " must be >= 1");
    require(n == 0 || m <= int64_t(std::numeric_limits<std::size_t>::max() / sizeof(T)) / n,
            "TileMatrix: m x n = " + std::to_string(m) + " x " + std::to_string(n) + " elements exceed the address space");
    auto s = std::make_shared<Storage>();
    s->rt = &rt;
    s->m = m;
    s->n = n;
    s->nb = nb;
    s->mt = tiles_along(m, nb);
    s->nt = tiles_along(n, nb);
    s->buffer = static_cast<T*>(rt.allocate_for_transfers(std::size_t(m) * std::size_t(n) * sizeof(T)));
    s->tiles.reserve(std::size_t(s->mt * s->nt));
    T* next = s->buffer;
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            s->tiles.emplace_back(rt, rt::Matrix<T>{next, mb, nbj, mb});
            next += mb * nbj;
        }
    s_ = std::move(s);
    m_ = m;
    n_ = n;
    mt_ = s_->mt;
    nt_ = s_->nt;
}

template <Scalar T>
TileMatrix<T> TileMatrix<T>::wrap(rt::Runtime& rt, T* a, int64_t m, int64_t n, int64_t lda, int64_t nb)
{
    require(m >= 0, "TileMatrix::wrap: m = " + std::to_string(m) + " must be >= 0");
    require(n >= 0, "TileMatrix::wrap: n = " + std::to_string(n) + " must be >= 0");
    require(lda >= std::max<int64_t>(1, m),
            "TileMatrix::wrap: lda = " + std::to_string(lda) + " must be >= max(1, m = " + std::to_string(m) + ")");
    // a tile's leading dimension is lda, and the BLAS and LAPACK the kernels call take int
    require(lda <= std::numeric_limits<int>::max(),
            "TileMatrix::wrap: lda = " + std::to_string(lda) + " exceeds the BLAS's int (" +
                std::to_string(std::numeric_limits<int>::max()) + ")");
    require(nb >= 1, "TileMatrix::wrap: nb = " + std::to_string(nb) + " must be >= 1");
    require(a != nullptr || m == 0 || n == 0, "TileMatrix::wrap: a is null");
    TileMatrix A;
    auto s = std::make_shared<Storage>();
    s->rt = &rt;
    s->m = m;
    s->n = n;
    s->nb = nb;
    s->mt = tiles_along(m, nb);
    s->nt = tiles_along(n, nb);
    if (m > 0 && n > 0) s->pinned = rt.pin_for_transfers(a, std::size_t((n - 1) * lda + m) * sizeof(T));
    s->tiles.reserve(std::size_t(s->mt * s->nt));
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            s->tiles.emplace_back(rt, rt::Matrix<T>{a + i * nb + j * nb * lda, mb, nbj, lda});
        }
    A.s_ = std::move(s);
    A.m_ = m;
    A.n_ = n;
    A.mt_ = A.s_->mt;
    A.nt_ = A.s_->nt;
    return A;
}

template <Scalar T>
std::size_t TileMatrix<T>::index(int64_t i, int64_t j) const
{
    if (!(i >= 0 && i < mt_ && j >= 0 && j < nt_)) [[unlikely]]  // the message only on failure
        throw InvalidArgument("TileMatrix: tile (" + std::to_string(i) + ", " + std::to_string(j) +
                              ") is outside the " + std::to_string(mt_) + " x " + std::to_string(nt_) + " tiles");
    return std::size_t((i0_ + i) + (j0_ + j) * s_->mt);
}

template <Scalar T>
TileMatrix<T> TileMatrix<T>::sub(int64_t i, int64_t j, int64_t mt, int64_t nt) const
{
    require(i >= 0 && mt >= 0 && i + mt <= mt_, "TileMatrix::sub: tile rows [" + std::to_string(i) + ", " +
                                                    std::to_string(i + mt) + ") outside [0, " +
                                                    std::to_string(mt_) + ")");
    require(j >= 0 && nt >= 0 && j + nt <= nt_, "TileMatrix::sub: tile columns [" + std::to_string(j) + ", " +
                                                    std::to_string(j + nt) + ") outside [0, " +
                                                    std::to_string(nt_) + ")");
    TileMatrix v = *this;
    v.i0_ = i0_ + i;
    v.j0_ = j0_ + j;
    v.mt_ = mt;
    v.nt_ = nt;
    v.m_ = mt == 0 ? 0 : std::min(s_->m, (v.i0_ + mt) * s_->nb) - v.i0_ * s_->nb;
    v.n_ = nt == 0 ? 0 : std::min(s_->n, (v.j0_ + nt) * s_->nb) - v.j0_ * s_->nb;
    return v;
}

template <Scalar T>
rt::Runtime& TileMatrix<T>::runtime() const
{
    require(s_ != nullptr, "TileMatrix: empty matrix has no runtime");
    return *s_->rt;
}

template class TileMatrix<float>;
template class TileMatrix<double>;
template class TileMatrix<std::complex<float>>;
template class TileMatrix<std::complex<double>>;

}  // namespace tessera::la
