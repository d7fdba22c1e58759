// Partitioning filters: children alias disjoint pieces of the parent's memory (no copies).
#include "runtime/core/runtime_impl.hpp"
#include "runtime/core/task.hpp"
#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/filter.hpp>

#include <string>

namespace tessera::rt::detail {

namespace {
/// Piece p of n elements split into `parts`: balanced, the first n % parts pieces one larger.
struct Piece {
    int64_t offset, size;
};
Piece piece(int64_t n, int64_t parts, int64_t p)
{
    int64_t q = n / parts, r = n % parts;
    return {p * q + std::min(p, r), q + (p < r ? 1 : 0)};
}
}  // namespace

std::vector<std::shared_ptr<DataState>> partition_data(DataState* parent, Filter const& f)
{
    require(current_worker_id() == no_worker, "partition: cannot partition from inside a task");
    require(parent->registered.load(std::memory_order_acquire),
            "partition: handle is not registered");
    Layout const& l = parent->layout;
    bool is_vector = l.kind == InterfaceKind::vector, is_matrix = l.kind == InterfaceKind::matrix;
    if (f.kind == Filter::Kind::blocks)
        require(is_vector, "partition: blocks() applies to a vector handle");
    else
        require(is_matrix,
                "partition: row_blocks(), col_blocks() and tiles() apply to a matrix handle");
    int64_t rows = f.parts_a, cols = f.parts_b;
    require(rows >= 1 && cols >= 1, "partition: the number of pieces must be at least 1");
    require(rows <= std::max<int64_t>(1, l.nx), "partition: " + std::to_string(rows) +
                                                    " row pieces for " + std::to_string(l.nx) +
                                                    " rows");
    require(cols <= std::max<int64_t>(1, l.ny), "partition: " + std::to_string(cols) +
                                                    " column pieces for " + std::to_string(l.ny) +
                                                    " columns");
    {
        std::lock_guard lock(parent->m);
        require(!parent->partitioned, "partition: handle is already partitioned");
    }
    require(parent->home == host_node,
            "partition: only handles registered on host memory can be partitioned");
    parent->wait_idle();  // the pieces start from the parent's completed state,
    gather_home(parent);  // all of it in the parent's memory, where the pieces alias it

    std::vector<std::shared_ptr<DataState>> children;
    children.reserve(std::size_t(rows * cols));
    auto* base = static_cast<std::byte*>(parent->host_ptr);
    for (int64_t j = 0; j < cols; ++j) {
        for (int64_t i = 0; i < rows; ++i) {
            Piece pr = piece(l.nx, rows, i), pc = piece(l.ny, cols, j);
            Layout c = l;
            c.nx = pr.size;
            c.ny = pc.size;
            if (is_vector)
                c.ld = c.nx;
            else
                c.ldz = l.ld * c.ny;
            std::size_t offset = std::size_t(pr.offset + pc.offset * l.ld) * l.elem_size;
            children.push_back(std::make_shared<DataState>(parent->rt, base + offset, c, parent));
        }
    }
    std::lock_guard lock(parent->m);
    // the pieces carry on the parent's history: a reader of a piece written by a failed task
    // is cancelled like a reader of the whole
    if (parent->last_writer)
        for (auto& c : children) {
            task_retain(parent->last_writer);
            c->last_writer = parent->last_writer;
        }
    parent->partitioned = true;
    parent->children = children;
    return children;
}

bool data_partitioned(DataState& s) noexcept
{
    std::lock_guard lock(s.m);
    return s.partitioned;
}

void unpartition_data(DataState* parent, std::vector<DataState*> const& children,
                      bool throw_on_error)
{
    if (throw_on_error) {
        require(current_worker_id() == no_worker,
                "unpartition: cannot unpartition from inside a task");
        for (std::size_t i = 0; i < children.size(); ++i) {
            if (!children[i]) continue;
            std::lock_guard lock(children[i]->m);
            require(!children[i]->partitioned, "unpartition: piece " + std::to_string(i) +
                                                   " is itself partitioned; unpartition it first");
        }
    }
    std::vector<std::shared_ptr<DataState>> mine;
    {
        std::lock_guard lock(parent->m);
        bool same = parent->partitioned && parent->children.size() == children.size();
        for (std::size_t i = 0; same && i < children.size(); ++i)
            same = parent->children[i].get() == children[i] || children[i] == nullptr;
        if (!same) return;  // already given back (the parent was unregistered)
        mine.swap(parent->children);
    }
    for (auto& c : mine) unregister_data(*c);  // waits for the piece's tasks
    std::lock_guard lock(parent->m);
    // the whole carries on its pieces' history: a failed last writer of any piece stands for it
    for (auto& c : mine) {
        std::lock_guard lc(c->m);
        if (c->last_writer && c->last_writer->failed && c->last_writer != parent->last_writer) {
            task_retain(c->last_writer);
            if (parent->last_writer) task_release(parent->last_writer);
            parent->last_writer = c->last_writer;
            break;
        }
    }
    parent->partitioned = false;
}

}  // namespace tessera::rt::detail
