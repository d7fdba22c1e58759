/// @file tile_matrix.hpp
/// `TileMatrix<T>`: an m x n matrix cut into nb x nb tiles (the last tile row and column
/// smaller when nb does not divide m or n), each tile a registered handle, so that tile
/// algorithms are loops of tasks on tiles (PLASMA's descriptor, StarPU's filtered matrix).
///
///       j=0    j=1    j=2
///     +------+------+----+   tile (i, j) holds rows [i nb, min((i+1) nb, m)) and the
///  i=0|      |      |    |   columns [j nb, min((j+1) nb, n)); it is column-major with its own
///     +------+------+----+   leading dimension: contiguous (ld = its row count) in the tile
///  i=1|      |      |    |   storage TileMatrix allocates (pinned with GPUs: a tile moves to a
///     +------+------+----+   GPU in one copy), or lda when wrapping a LAPACK array in place.
///  i=2|      |      |    |
///     +------+------+----+
///
///     tessera::TileMatrix<double> A{rt, n, n, 256};      // tile storage, content undefined
///     tessera::lapack_to_tiles(a, lda, A);              // one copy task per tile, then waits
///     int64_t info = tessera::potrf(Uplo::lower, A);
///     tessera::tiles_to_lapack(A, a, lda);
///
/// Copies of a TileMatrix are views sharing its tiles; sub() gives a view of a range of tiles.
/// The storage lives until the last view is gone; destroying it waits for the tiles' tasks.
#pragma once

#include <tessera/la/scalar.hpp>
#include <tessera/rt/handle.hpp>
#include <tessera/rt/interfaces.hpp>
#include <tessera/rt/runtime.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace tessera::inline la {

template <Scalar T> class ReadOnlyTileMatrix;

/// An m x n matrix of nb x nb tiles, each a registered handle (see the file's comment).
/// Copies are views sharing the tiles.
template <Scalar T> class TileMatrix {
public:
    /// A tile: a registered handle of a column-major matrix.
    using Tile = rt::Handle<rt::Matrix<T>>;

    /// An empty 0 x 0 matrix with no runtime.
    TileMatrix() = default;
    /// Allocates an m x n matrix of nb x nb tiles in contiguous tile storage, pinned when `rt`
    /// has GPUs (Runtime::allocate_for_transfers), and registers every tile with `rt`. The
    /// content is undefined until written. Throws InvalidArgument when m < 0, n < 0 or nb < 1.
    TileMatrix(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb);
    /// Registers the tiles of column-major memory `a` (m x n, leading dimension lda) in place,
    /// without copying: tasks then read and write `a` itself. `a` must outlive the matrix; it
    /// holds valid data again once the matrix (all its views) is destroyed. Throws
    /// InvalidArgument when m < 0, n < 0, nb < 1, lda < max(1, m), lda > INT_MAX (the kernels'
    /// BLAS take int) or `a` is null with m, n > 0.
    static TileMatrix wrap(rt::Runtime& rt, T* a, int64_t m, int64_t n, int64_t lda, int64_t nb);
    /// Where one tile lives for with_tiles_at: column-major at `ptr` with leading dimension
    /// `ld`, or, with ptr null, in storage the matrix allocates.
    struct TileHome {
        T* ptr = nullptr;  ///< the tile's first element, or null
        int64_t ld = 0;    ///< its leading dimension (>= its rows)
    };
    /// An m x n matrix of nb x nb tiles, tile (i, j) registered in place where `home(i, j)`
    /// says (the local blocks of a ScaLAPACK process: tessera::wrap_scalapack), the tiles with
    /// no home (the other processes' blocks) in an address range the matrix reserves for them,
    /// with memory behind a page only once it is written (as with_local_tiles). The memory must outlive the
    /// matrix and hold valid data again once it is destroyed. Throws InvalidArgument as the
    /// constructor does, or when a tile's ld is below its rows or above INT_MAX.
    static TileMatrix with_tiles_at(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb,
                                    std::function<TileHome(int64_t i, int64_t j)> const& home);
    /// An m x n matrix of nb x nb tiles for one rank of a distribution (distributed_matrix in
    /// tessera/la/distributed.hpp): the tiles for which `local(i, j)` is true in storage of
    /// the matrix's own sized for them alone (pinned when `rt` has GPUs), the others in an
    /// address range reserved without memory behind it, which gets pages only where this rank
    /// writes a copy of those tiles. A rank's memory is then its own tiles and the copies it
    /// receives, not the whole matrix. The content is undefined until written. Throws as the
    /// constructor does, or Error when the address range cannot be reserved.
    static TileMatrix with_local_tiles(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb,
                                       std::function<bool(int64_t i, int64_t j)> const& local);
    /// The same over memory the caller may only read: the result gives the tile calls a
    /// `TileMatrix const&` (matrix()), through which they read it and never write it.
    static ReadOnlyTileMatrix<T> wrap(rt::Runtime& rt, T const* a, int64_t m, int64_t n,
                                      int64_t lda, int64_t nb);

    int64_t m() const noexcept { return m_; }                ///< rows
    int64_t n() const noexcept { return n_; }                ///< columns
    int64_t nb() const noexcept { return s_ ? s_->nb : 1; }  ///< tile size
    int64_t mt() const noexcept { return mt_; }              ///< tile rows
    int64_t nt() const noexcept { return nt_; }              ///< tile columns
    /// Rows of tile row i (nb, or fewer for the last one).
    int64_t tile_m(int64_t i) const noexcept { return std::min(nb(), s_->m - (i0_ + i) * nb()); }
    /// Columns of tile column j.
    int64_t tile_n(int64_t j) const noexcept { return std::min(nb(), s_->n - (j0_ + j) * nb()); }

    /// Tile (i, j), 0 <= i < mt(), 0 <= j < nt() (checked: throws InvalidArgument).
    ///@{
    Tile& operator()(int64_t i, int64_t j) { return s_->tiles[index(i, j)]; }
    Tile const& operator()(int64_t i, int64_t j) const { return s_->tiles[index(i, j)]; }
    ///@}

    /// A view of the tiles [i, i + mt) x [j, j + nt) (m and n follow from their sizes).
    TileMatrix sub(int64_t i, int64_t j, int64_t mt, int64_t nt) const;

    /// The runtime the tiles are registered with; InvalidArgument when there is none.
    rt::Runtime& runtime() const;
    /// True when the tiles live in the matrix's own contiguous tile storage (not wrapped), or
    /// some of them do (with_tiles_at).
    bool owns_storage() const noexcept { return s_ && (s_->buffer || s_->reserved); }
    /// True when this matrix and `other` share an element: views of one matrix whose tile
    /// ranges meet, or wrapped arrays whose elements meet in memory (with different leading
    /// dimensions, whose address ranges meet). The in-place tiles of with_tiles_at are not
    /// compared.
    bool overlaps(TileMatrix const& other) const noexcept;
    /// True when tile (i, j) lives in the address range the matrix reserves for the tiles of
    /// other ranks (with_local_tiles, with_tiles_at): its memory only ever holds this rank's
    /// copies of another rank's data, which the tile algorithms give back after their last use.
    bool reserved_for_copies(int64_t i, int64_t j) const;
    /// False for a default-constructed (or moved-from) matrix, which has no runtime.
    explicit operator bool() const noexcept { return s_ != nullptr; }

private:
    struct Storage {
        rt::Runtime* rt = nullptr;
        int64_t m = 0, n = 0, nb = 1, mt = 0, nt = 0;
        /// the tile storage (allocate_for_transfers), or nullptr when wrapping
        T* buffer = nullptr;
        /// with_local_tiles: the other ranks' tiles, in an address range reserved without memory
        void* reserved = nullptr;
        std::size_t reserved_bytes = 0;
        T* array = nullptr;       ///< the wrapped array, or nullptr
        int64_t lda = 0;          ///< its leading dimension
        rt::PinnedRegion pinned;  ///< a wrapped array, page-locked when GPUs will copy it
        std::vector<Tile> tiles;  ///< tile (i, j) at i + j mt; unregistered before `pinned`
        ~Storage();
    };
    std::size_t index(int64_t i, int64_t j) const;
    /// A storage of m x n in nb x nb tiles, none registered yet; `call` names the arguments'
    /// errors.
    static std::shared_ptr<Storage> shaped(rt::Runtime& rt, int64_t m, int64_t n, int64_t nb,
                                           char const* call);
    /// Reserves `bytes` of address space for s's tiles of other ranks (s.reserved), with no
    /// memory behind it until written; Error, naming `call`, if it cannot.
    static void reserve(Storage& s, std::size_t bytes, char const* call);
    /// Becomes the whole of storage s.
    void take(std::shared_ptr<Storage> s) noexcept;

    std::shared_ptr<Storage> s_;
    int64_t i0_ = 0, j0_ = 0;  ///< this view's first tile in the storage
    int64_t m_ = 0, n_ = 0, mt_ = 0, nt_ = 0;
};

/// A TileMatrix over read-only memory (TileMatrix::wrap of a `T const*`): only its const view
/// is reachable, so the tile calls can take it where they read a matrix, never where they
/// write one.
///
///     auto A = tessera::TileMatrix<double>::wrap(rt, a_const, n, n, lda, nb);
///     tessera::potrs(Uplo::lower, A.matrix(), B);
template <Scalar T> class ReadOnlyTileMatrix {
public:
    /// The matrix, for the tile calls that read it.
    TileMatrix<T> const& matrix() const noexcept { return m_; }
    /// The same, by implicit conversion.
    operator TileMatrix<T> const&() const noexcept { return m_; }

private:
    friend class TileMatrix<T>;
    explicit ReadOnlyTileMatrix(TileMatrix<T> m) noexcept : m_(std::move(m)) {}
    TileMatrix<T> m_;
};

extern template class TileMatrix<float>;
extern template class TileMatrix<double>;
extern template class TileMatrix<std::complex<float>>;
extern template class TileMatrix<std::complex<double>>;

}  // namespace tessera::inline la
