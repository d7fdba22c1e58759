// TileMatrix: the tile storage and its registration. In the matrix's own storage, tile (i, j)
// is contiguous (ld = its row count) and the tiles follow each other in column-major tile
// order, so that the whole matrix is one allocation of exactly m n elements (pinned when the
// runtime has GPUs); with_local_tiles makes that allocation for a rank's own tiles, and puts
// the others in an address range reserved without memory.
#include <tessera/la/tile_matrix.hpp>

#include <tessera/error.hpp>
#include <tessera/rt/memory.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace tessera::inline la {

namespace {
// ceil(extent / nb), without extent + nb - 1, which overflows for nb near INT64_MAX
int64_t tiles_along(int64_t extent, int64_t nb)
{
    return extent == 0 ? 0 : 1 + (extent - 1) / nb;
}

/// A column-major array: `m` x `n` elements of `bytes` each from address `first`, `ld` apart.
struct ArrayExtent {
    std::uintptr_t first;
    int64_t m, n, ld;
    std::size_t bytes;
    std::uintptr_t end() const { return first + std::size_t((n - 1) * ld + m) * bytes; }
};

/// Do two non-empty arrays share an element? With one leading dimension ld, on the grid of
/// ld rows that starts at the lower of the two: an array whose first element lies at offset
/// r + c ld (0 <= r < ld) holds rows [r, r + m) of columns [c, c + n), folded into rows
/// [0, r + m - ld) of columns [c + 1, c + n + 1) where r + m > ld: at most two rectangles
/// each, compared exactly. Otherwise, their address ranges are compared.
bool arrays_share_an_element(ArrayExtent const& a, ArrayExtent const& b)
{
    const std::uintptr_t origin = std::min(a.first, b.first);
    const bool on_one_grid = a.ld == b.ld && a.bytes == b.bytes &&
                             (a.first - origin) % a.bytes == 0 && (b.first - origin) % b.bytes == 0;
    if (!on_one_grid) return a.first < b.end() && b.first < a.end();
    struct Rectangle {
        int64_t r0, r1, c0, c1;  // rows [r0, r1) x columns [c0, c1)
    };
    auto rectangles = [&](ArrayExtent const& x, Rectangle(&out)[2]) {
        const auto offset = int64_t((x.first - origin) / x.bytes);
        const int64_t r = offset % x.ld, c = offset / x.ld;
        if (r + x.m <= x.ld) {
            out[0] = {r, r + x.m, c, c + x.n};
            return 1;
        }
        out[0] = {r, x.ld, c, c + x.n};
        out[1] = {0, r + x.m - x.ld, c + 1, c + x.n + 1};
        return 2;
    };
    Rectangle ra[2], rb[2];
    const int na = rectangles(a, ra), nb = rectangles(b, rb);
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j)
            if (ra[i].r0 < rb[j].r1 && rb[j].r0 < ra[i].r1 && ra[i].c0 < rb[j].c1 &&
                rb[j].c0 < ra[i].c1)
                return true;
    return false;
}
/// A tile's name in traces: its block coordinates.
std::string tile_label(int64_t i, int64_t j)
{
    return "(" + std::to_string(i) + "," + std::to_string(j) + ")";
}
}  // namespace

template <Scalar T> TileMatrix<T>::Storage::~Storage()
{
    tiles.clear();  // unregisters every tile: waits for its tasks, data back in `buffer`
    rt::free_pinned(buffer);
    if (reserved) munmap(reserved, reserved_bytes);
}

template <Scalar T>
std::shared_ptr<typename TileMatrix<T>::Storage>
TileMatrix<T>::shaped(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb, char const* call)
{
    require(m >= 0, std::string(call) + ": m = " + std::to_string(m) + " must be >= 0");
    require(n >= 0, std::string(call) + ": n = " + std::to_string(n) + " must be >= 0");
    require(nb >= 1, std::string(call) + ": nb = " + std::to_string(nb) + " must be >= 1");
    require(n == 0 || m <= int64_t(std::numeric_limits<std::size_t>::max() / sizeof(T)) / n,
            std::string(call) + ": m x n = " + std::to_string(m) + " x " + std::to_string(n) +
                " elements exceed the address space");
    auto s = std::make_shared<Storage>();
    s->rt = &rt;
    s->m = m;
    s->n = n;
    s->nb = nb;
    s->mt = tiles_along(m, nb);
    s->nt = tiles_along(n, nb);
    s->tiles.reserve(std::size_t(s->mt * s->nt));
    return s;
}

template <Scalar T> void TileMatrix<T>::take(std::shared_ptr<Storage> s) noexcept
{
    s_ = std::move(s);
    m_ = s_->m;
    n_ = s_->n;
    mt_ = s_->mt;
    nt_ = s_->nt;
}

template <Scalar T> TileMatrix<T>::TileMatrix(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb)
{
    auto s = shaped(rt, m, n, nb, "TileMatrix");
    s->buffer =
        static_cast<T*>(rt.allocate_for_transfers(std::size_t(m) * std::size_t(n) * sizeof(T)));
    T* next = s->buffer;
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            s->tiles.emplace_back(rt, rt::Matrix<T>{next, mb, nbj, mb});
            s->tiles.back().set_label(tile_label(i, j));
            next += mb * nbj;
        }
    take(std::move(s));
}

template <Scalar T> void TileMatrix<T>::reserve(Storage& s, std::size_t bytes, char const* call)
{
    if (bytes == 0) return;
    // MAP_NORESERVE: not counted against the memory the kernel may promise (its heuristic
    // refuses a single allocation larger than the machine's memory): untouched pages cost
    // nothing, and a rank never touches the tiles it neither owns nor receives.
    void* range = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED)
        throw Error(std::string(call) + ": cannot reserve " + std::to_string(bytes) +
                    " bytes of address space for the other ranks' tiles");
    s.reserved = range;
    s.reserved_bytes = bytes;
}

template <Scalar T>
TileMatrix<T> TileMatrix<T>::with_local_tiles(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb,
                                              std::function<bool(int64_t, int64_t)> const& local)
{
    auto s = shaped(rt, m, n, nb, "TileMatrix::with_local_tiles");
    std::vector<bool> is_local(std::size_t(s->mt * s->nt));
    std::size_t own = 0, others = 0;  // elements
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const std::size_t elements =
                std::size_t(std::min(nb, m - i * nb)) * std::size_t(std::min(nb, n - j * nb));
            const bool here = local(i, j);
            is_local[std::size_t(i + j * s->mt)] = here;
            (here ? own : others) += elements;
        }
    if (own > 0) s->buffer = static_cast<T*>(rt.allocate_for_transfers(own * sizeof(T)));
    reserve(*s, others * sizeof(T), "TileMatrix::with_local_tiles");
    T *next_own = s->buffer, *next_other = static_cast<T*>(s->reserved);
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            T*& next = is_local[std::size_t(i + j * s->mt)] ? next_own : next_other;
            s->tiles.emplace_back(rt, rt::Matrix<T>{next, mb, nbj, mb});
            s->tiles.back().set_label(tile_label(i, j));
            next += mb * nbj;
        }
    TileMatrix A;
    A.take(std::move(s));
    return A;
}

template <Scalar T>
TileMatrix<T> TileMatrix<T>::with_tiles_at(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb,
                                           std::function<TileHome(int64_t, int64_t)> const& home)
{
    auto s = shaped(rt, m, n, nb, "TileMatrix::with_tiles_at");
    std::vector<TileHome> homes;
    homes.reserve(std::size_t(s->mt * s->nt));
    std::size_t own = 0;  // the elements of the tiles with no home: storage of the matrix's own
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            const TileHome h = home(i, j);
            if (!h.ptr) {
                own += std::size_t(mb * nbj);
            } else {
                require(h.ld >= mb && h.ld <= std::numeric_limits<int>::max(), [&] {
                    return "TileMatrix::with_tiles_at: tile " + tile_label(i, j) +
                           ": ld = " + std::to_string(h.ld) + " must be from its " +
                           std::to_string(mb) + " rows to the BLAS's int";
                });
            }
            homes.push_back(h);
        }
    reserve(*s, own * sizeof(T), "TileMatrix::with_tiles_at");  // the other ranks' blocks
    T* next = static_cast<T*>(s->reserved);
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            const TileHome h = homes[std::size_t(i + j * s->mt)];
            if (h.ptr) {
                s->tiles.emplace_back(rt, rt::Matrix<T>{h.ptr, mb, nbj, h.ld});
            } else {
                s->tiles.emplace_back(rt, rt::Matrix<T>{next, mb, nbj, mb});
                next += mb * nbj;
            }
            s->tiles.back().set_label(tile_label(i, j));
        }
    TileMatrix A;
    A.take(std::move(s));
    return A;
}

template <Scalar T>
TileMatrix<T> TileMatrix<T>::wrap(rt::Runtime& rt, T* a, int64_t m, int64_t n, int64_t lda,
                                  int64_t nb)
{
    auto s = shaped(rt, m, n, nb, "TileMatrix::wrap");
    require(lda >= std::max<int64_t>(1, m), "TileMatrix::wrap: lda = " + std::to_string(lda) +
                                                " must be >= max(1, m = " + std::to_string(m) +
                                                ")");
    // a tile's leading dimension is lda, and the BLAS and LAPACK the kernels call take int
    require(lda <= std::numeric_limits<int>::max(),
            "TileMatrix::wrap: lda = " + std::to_string(lda) + " exceeds the BLAS's int (" +
                std::to_string(std::numeric_limits<int>::max()) + ")");
    require(a != nullptr || m == 0 || n == 0, "TileMatrix::wrap: a is null");
    s->array = a;
    s->lda = lda;
    if (m > 0 && n > 0)
        s->pinned = rt.pin_for_transfers(a, std::size_t((n - 1) * lda + m) * sizeof(T));
    for (int64_t j = 0; j < s->nt; ++j)
        for (int64_t i = 0; i < s->mt; ++i) {
            const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
            s->tiles.emplace_back(rt, rt::Matrix<T>{a + i * nb + j * nb * lda, mb, nbj, lda});
            s->tiles.back().set_label(tile_label(i, j));
        }
    TileMatrix A;
    A.take(std::move(s));
    return A;
}

template <Scalar T>
ReadOnlyTileMatrix<T> TileMatrix<T>::wrap(rt::Runtime& rt, T const* a, int64_t m, int64_t n,
                                          int64_t lda, int64_t nb)
{
    // Handles register writable memory; only the read-only view leaves this function, and
    // the tile calls never write a matrix they take as const.
    return ReadOnlyTileMatrix<T>(wrap(rt, const_cast<T*>(a), m, n, lda, nb));
}

template <Scalar T> std::size_t TileMatrix<T>::index(int64_t i, int64_t j) const
{
    if (!(i >= 0 && i < mt_ && j >= 0 && j < nt_)) [[unlikely]]  // the message only on failure
        throw InvalidArgument("TileMatrix: tile (" + std::to_string(i) + ", " + std::to_string(j) +
                              ") is outside the " + std::to_string(mt_) + " x " +
                              std::to_string(nt_) + " tiles");
    return std::size_t((i0_ + i) + (j0_ + j) * s_->mt);
}

template <Scalar T>
TileMatrix<T> TileMatrix<T>::sub(int64_t i, int64_t j, int64_t mt, int64_t nt) const
{
    require(i >= 0 && mt >= 0 && i + mt <= mt_, "TileMatrix::sub: tile rows [" + std::to_string(i) +
                                                    ", " + std::to_string(i + mt) +
                                                    ") outside [0, " + std::to_string(mt_) + ")");
    require(j >= 0 && nt >= 0 && j + nt <= nt_,
            "TileMatrix::sub: tile columns [" + std::to_string(j) + ", " + std::to_string(j + nt) +
                ") outside [0, " + std::to_string(nt_) + ")");
    TileMatrix v = *this;
    v.i0_ = i0_ + i;
    v.j0_ = j0_ + j;
    v.mt_ = mt;
    v.nt_ = nt;
    // up to the storage's end, or whole tiles before it (mt nb < the rows left: no overflow)
    v.m_ = mt == 0 ? 0 : v.i0_ + mt == s_->mt ? s_->m - v.i0_ * s_->nb : mt * s_->nb;
    v.n_ = nt == 0 ? 0 : v.j0_ + nt == s_->nt ? s_->n - v.j0_ * s_->nb : nt * s_->nb;
    return v;
}

template <Scalar T> bool TileMatrix<T>::reserved_for_copies(int64_t i, int64_t j) const
{
    if (!s_->reserved) return false;
    const auto* p = reinterpret_cast<std::byte const*>((*this)(i, j).view().ptr);
    const auto* begin = static_cast<std::byte const*>(s_->reserved);
    return p >= begin && p < begin + s_->reserved_bytes;
}

template <Scalar T> bool TileMatrix<T>::overlaps(TileMatrix const& other) const noexcept
{
    if (!s_ || !other.s_ || m_ == 0 || n_ == 0 || other.m_ == 0 || other.n_ == 0) return false;
    if (s_ == other.s_)
        return i0_ < other.i0_ + other.mt_ && other.i0_ < i0_ + mt_ &&
               j0_ < other.j0_ + other.nt_ && other.j0_ < j0_ + nt_;
    if (!s_->array || !other.s_->array) return false;  // tile storage of its own is no one else's
    auto extent = [](TileMatrix const& x) {
        T const* first = x.s_->array + x.i0_ * x.s_->nb + x.j0_ * x.s_->nb * x.s_->lda;
        return ArrayExtent{reinterpret_cast<std::uintptr_t>(first), x.m_, x.n_, x.s_->lda,
                           sizeof(T)};
    };
    return arrays_share_an_element(extent(*this), extent(other));
}

template <Scalar T> rt::Runtime& TileMatrix<T>::runtime() const
{
    require(s_ != nullptr, "TileMatrix: empty matrix has no runtime");
    return *s_->rt;
}

template class TileMatrix<float>;
template class TileMatrix<double>;
template class TileMatrix<std::complex<float>>;
template class TileMatrix<std::complex<double>>;

}  // namespace tessera::inline la
