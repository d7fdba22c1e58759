/// @file filter.hpp
/// Filters split a handle into sub-handles that alias disjoint parts of its data, without
/// copying (StarPU's data partitioning). Sub-handles are ordinary handles: tasks use them,
/// and they can be partitioned again. While partitioned, the parent cannot be used (a clear
/// InvalidArgument); unpartitioning (explicitly or by the Partition's destructor) waits for
/// the children's tasks and gives the parent back.
///
///     rt::Handle A{rt, rt::Matrix<double>{a, m, n, lda}};
///     auto tiles = rt::partition(A, rt::tiles(mt, nt));   // tiles(i, j) is a Handle<Matrix<double>>
///     rt.submit(scale, readwrite(tiles(1, 0)), value(2.0));
///     auto halves = rt::partition(tiles(0, 0), rt::row_blocks(2));   // recursive
///
/// Pieces are balanced: splitting n into p parts gives sizes n/p or n/p + 1, the larger first.
#pragma once

#include <tessera/rt/handle.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::rt {

/// How to split a handle.
struct Filter {
    /// The split: blocks() of a vector; row_blocks(), col_blocks() or tiles() of a matrix.
    enum class Kind : uint8_t { blocks, row_blocks, col_blocks, tiles } kind;  ///< the split
    int64_t parts_a = 1;  ///< pieces along the rows (or the vector)
    int64_t parts_b = 1;  ///< pieces along the columns (col_blocks, tiles)
};
/// A vector into `parts` consecutive blocks.
constexpr Filter blocks(int64_t parts) noexcept
{
    return {Filter::Kind::blocks, parts, 1};
}
/// A matrix into `parts` blocks of rows (horizontal slabs), child i = rows of block i.
constexpr Filter row_blocks(int64_t parts) noexcept
{
    return {Filter::Kind::row_blocks, parts, 1};
}
/// A matrix into `parts` blocks of columns, child j = columns of block j.
constexpr Filter col_blocks(int64_t parts) noexcept
{
    return {Filter::Kind::col_blocks, 1, parts};
}
/// A matrix into mt x nt tiles, child (i, j).
constexpr Filter tiles(int64_t mt, int64_t nt) noexcept
{
    return {Filter::Kind::tiles, mt, nt};
}

namespace detail {
/// Partitions `parent`; returns the children in column-major order of (row piece, column piece).
std::vector<std::shared_ptr<DataState>> partition_data(DataState* parent, Filter const& f);
/// Gives the parent back; the children must be the ones partition_data returned.
/// Gives the parent back (a no-op if it was already given back by unregistering the parent).
void unpartition_data(DataState* parent, std::vector<DataState*> const& children,
                      bool throw_on_error);
bool data_partitioned(DataState& s) noexcept;
}  // namespace detail

/// An active partition of a handle; owns the sub-handles.
template <Interface I> class Partition {
public:
    /// Splits `parent` with `f`. Throws InvalidArgument if the parent is not registered,
    /// already partitioned, the filter does not fit the interface, or a count is < 1 or larger
    /// than the extent it splits.
    Partition(Handle<I>& parent, Filter f)
        : parent_(detail::Internals::shared_state(parent)), rows_(f.parts_a), cols_(f.parts_b)
    {
        require(parent_ != nullptr, "partition: handle is not registered");
        for (auto& c : detail::partition_data(parent_.get(), f))
            children_.push_back(detail::Internals::adopt_state<Handle<I>>(std::move(c)));
    }
    /// Takes over o's partition; o owns nothing afterwards and its destructor does nothing.
    Partition(Partition&& o) noexcept
        : parent_(std::move(o.parent_)), rows_(o.rows_), cols_(o.cols_),
          children_(std::move(o.children_))
    {}
    Partition& operator=(Partition&&) = delete;
    ~Partition()
    {
        if (parent_) release(false);
    }

    /// Number of sub-handles, rows() * cols() (0 once unpartitioned).
    int64_t size() const noexcept { return int64_t(children_.size()); }
    /// Pieces along the rows (of a vector: its blocks), as the filter asked.
    int64_t rows() const noexcept { return rows_; }
    /// Pieces along the columns (1 for blocks() and row_blocks()), as the filter asked.
    int64_t cols() const noexcept { return cols_; }
    /// Sub-handle i (column-major order for tiles).
    Handle<I>& operator[](int64_t i)
    {
        require(parent_ && i >= 0 && i < size(), "partition: child index out of range");
        return children_[std::size_t(i)];
    }
    /// Tile (i, j) of a tiles() / row_blocks() / col_blocks() partition.
    Handle<I>& operator()(int64_t i, int64_t j)
    {
        require(i >= 0 && i < rows_ && j >= 0 && j < cols_, "partition: tile index out of range");
        return (*this)[i + j * rows_];
    }
    /// Waits for the children's tasks and makes the parent usable again. Throws
    /// InvalidArgument if a child is itself still partitioned.
    void unpartition()
    {
        if (parent_) release(true);
    }

private:
    void release(bool throw_on_error)
    {
        std::vector<detail::DataState*> states;
        states.reserve(children_.size());
        for (auto& c : children_) states.push_back(detail::Internals::state(c));
        detail::unpartition_data(parent_.get(), states, throw_on_error);
        parent_.reset();
        children_.clear();
    }

    std::shared_ptr<detail::DataState> parent_;
    int64_t rows_, cols_;
    std::vector<Handle<I>> children_;
};

/// Partitions `h` with filter `f` (see Partition).
template <Interface I> Partition<I> partition(Handle<I>& h, Filter f)
{
    return Partition<I>(h, f);
}

/// True while `h` is partitioned: tasks and acquire must then take its sub-handles.
template <Interface I> bool partitioned(Handle<I> const& h) noexcept
{
    detail::DataState* s = detail::Internals::state(h);
    return s && detail::data_partitioned(*s);
}

}  // namespace tessera::rt
