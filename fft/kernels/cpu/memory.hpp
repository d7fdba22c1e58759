// What the FFT's CPU kernels and plans share about memory: scratch arrays aligned as the
// caller's (FFTW's plans depend on alignment), a thread's gather buffer kept between tasks,
// and whether a list of tiles is pieces of one array. Internal.
#pragma once

#include "fft/kernels/cpu/tile_fft.hpp"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <vector>

namespace tessera::fft::kernels::cpu {

/// Zeroed scratch memory of `bytes` whose first byte's address has a given remainder modulo
/// 64 (FFTW's SIMD alignment, 16 or 32 bytes, divides 64): a plan made on it runs on arrays
/// of that remainder.
class AlignedScratch {
public:
    /// The remainder that matters for FFTW's plans: p's address modulo 64.
    static int remainder_of(void const* p) noexcept
    {
        return int(reinterpret_cast<std::uintptr_t>(p) % 64);
    }

    AlignedScratch(std::size_t bytes, int remainder)
        : base_(std::calloc(bytes + 128, 1)), p_(nullptr)
    {
        if (!base_) throw std::bad_alloc();
        const auto b = reinterpret_cast<std::uintptr_t>(base_);
        p_ = reinterpret_cast<void*>((b + 63) / 64 * 64 + std::uintptr_t(remainder));
    }
    ~AlignedScratch() { std::free(base_); }
    AlignedScratch(AlignedScratch const&) = delete;
    AlignedScratch& operator=(AlignedScratch const&) = delete;
    void* get() const noexcept { return p_; }

private:
    void* base_;
    void* p_;
};

/// Scratch arrays of one size and alignment kept between uses: a plan's scratch is allocated
/// and its pages faulted in once, not at every execute (with the four-step's 64 MB at 2^22
/// points fresh at every execute, its first pass's tasks took 19 to 24 ms, against 13 to 14
/// ms on a kept array). A use leases one; concurrent uses lease one each.
class ScratchPool {
public:
    ScratchPool(std::size_t bytes, int remainder) : bytes_(bytes), remainder_(remainder) {}

    /// An array of the pool's, back in the pool when the lease ends.
    class Lease {
    public:
        Lease(ScratchPool& pool, std::unique_ptr<AlignedScratch> s) : pool_(pool), s_(std::move(s))
        {}
        ~Lease()
        {
            const std::lock_guard lock(pool_.m_);
            pool_.free_.push_back(std::move(s_));
        }
        Lease(Lease const&) = delete;
        Lease& operator=(Lease const&) = delete;
        void* get() const noexcept { return s_->get(); }

    private:
        ScratchPool& pool_;
        std::unique_ptr<AlignedScratch> s_;
    };

    Lease lease()
    {
        {
            const std::lock_guard lock(m_);
            if (!free_.empty()) {
                auto s = std::move(free_.back());
                free_.pop_back();
                return Lease(*this, std::move(s));
            }
        }
        return Lease(*this, std::make_unique<AlignedScratch>(bytes_, remainder_));
    }

private:
    std::size_t bytes_;
    int remainder_;
    std::mutex m_;
    std::vector<std::unique_ptr<AlignedScratch>> free_;
};

/// The elements of a gather buffer: a few hundred kilobytes, so that a batch of columns or
/// rows is transformed while it is still in the core's cache.
inline constexpr int64_t gather_buffer_elements = 32768;

/// A thread's buffer of at least `elements` T, 64-byte aligned (one FFTW plan per shape, not
/// per address), grown as needed and kept: no allocation per task once warm.
template <class T> T* thread_buffer(std::size_t elements)
{
    struct Buffer {
        std::unique_ptr<void, decltype(&std::free)> p{nullptr, &std::free};
        std::size_t bytes = 0;
    };
    thread_local Buffer b;
    const std::size_t bytes = (elements * sizeof(T) + 63) / 64 * 64;
    if (bytes > b.bytes) {
        b.p.reset(std::aligned_alloc(64, bytes));
        if (!b.p) throw std::bad_alloc();
        b.bytes = bytes;
    }
    return static_cast<T*>(b.p.get());
}

/// True when the tiles, one above the other, are pieces of one column-major array: each
/// starts where the previous one's first column ends, with the same leading dimension.
template <class T> bool stacked_in_one_array(std::span<TilePiece<T> const> t)
{
    for (std::size_t i = 1; i < t.size(); ++i)
        if (t[i].ld != t[0].ld || t[i].n != t[0].n || t[i].ptr != t[i - 1].ptr + t[i - 1].m)
            return false;
    return true;
}

/// True when the tiles, side by side, are pieces of one column-major array.
template <class T> bool side_by_side_in_one_array(std::span<TilePiece<T> const> t)
{
    for (std::size_t j = 1; j < t.size(); ++j)
        if (t[j].ld != t[0].ld || t[j].m != t[0].m ||
            t[j].ptr != t[j - 1].ptr + t[j - 1].n * t[0].ld)
            return false;
    return true;
}

}  // namespace tessera::fft::kernels::cpu
