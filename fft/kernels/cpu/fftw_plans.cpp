// FFTW's plans, cached per shape, in its two precisions (see fftw_plans.hpp).
#include "fft/kernels/cpu/fftw_plans.hpp"

#include "fft/kernels/cpu/memory.hpp"

#include <tessera/error.hpp>

#include <fftw3.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

// FFTW's threads library (libfftw3_threads), where the program links it: weak references,
// null without it. Tessera's library does not link it.
#pragma weak fftw_planner_nthreads
#pragma weak fftw_plan_with_nthreads
#pragma weak fftwf_planner_nthreads
#pragma weak fftwf_plan_with_nthreads

namespace tessera::fft::kernels::cpu {
namespace {

/// FFTW's API of precision R.
template <class R> struct Fftw;
template <> struct Fftw<double> {
    using plan = fftw_plan;
    using complex = fftw_complex;
    static constexpr auto plan_c2c = &fftw_plan_many_dft;
    static constexpr auto plan_r2c = &fftw_plan_many_dft_r2c;
    static constexpr auto plan_c2r = &fftw_plan_many_dft_c2r;
    static constexpr auto execute_c2c = &fftw_execute_dft;
    static constexpr auto execute_r2c = &fftw_execute_dft_r2c;
    static constexpr auto execute_c2r = &fftw_execute_dft_c2r;
    static int planner_threads() { return fftw_planner_nthreads ? fftw_planner_nthreads() : 1; }
    static void plan_with_threads(int n) { fftw_plan_with_nthreads(n); }
};
template <> struct Fftw<float> {
    using plan = fftwf_plan;
    using complex = fftwf_complex;
    static constexpr auto plan_c2c = &fftwf_plan_many_dft;
    static constexpr auto plan_r2c = &fftwf_plan_many_dft_r2c;
    static constexpr auto plan_c2r = &fftwf_plan_many_dft_c2r;
    static constexpr auto execute_c2c = &fftwf_execute_dft;
    static constexpr auto execute_r2c = &fftwf_execute_dft_r2c;
    static constexpr auto execute_c2r = &fftwf_execute_dft_c2r;
    static int planner_threads() { return fftwf_planner_nthreads ? fftwf_planner_nthreads() : 1; }
    static void plan_with_threads(int n) { fftwf_plan_with_nthreads(n); }
};

/// For its life, FFTW of precision R plans single-threaded, as it does unless a program asks
/// otherwise: Tessera's tasks are the parallelism, and the planner's thread count is global,
/// so a program's own fftw_plan_with_nthreads(k) would make every task's transform start k
/// threads of its own (a 2D transform at n = 2048 took 35 instead of 27 ms on 2 workers after
/// the benchmark's FFTW peer had asked for 2). The program's count is restored after.
template <class R> class SingleThreadedPlanning {
public:
    SingleThreadedPlanning() : threads_(Fftw<R>::planner_threads())
    {
        // above 1 only after fftw_init_threads, which plan_with_threads requires
        if (threads_ > 1) Fftw<R>::plan_with_threads(1);
    }
    ~SingleThreadedPlanning()
    {
        if (threads_ > 1) Fftw<R>::plan_with_threads(threads_);
    }
    SingleThreadedPlanning(SingleThreadedPlanning const&) = delete;
    SingleThreadedPlanning& operator=(SingleThreadedPlanning const&) = delete;

private:
    int threads_;
};

/// FFTW's planner is not thread-safe: every plan of either precision is made under this lock.
std::mutex& planner_lock()
{
    static std::mutex m;
    return m;
}

/// How many Measuring scopes are alive.
std::atomic<int> measuring{0};

/// An array's alignment as FFTW's plans depend on it (AlignedScratch::remainder_of).
int alignment_of(void const* p)
{
    return AlignedScratch::remainder_of(p);
}

/// A plan's shape: the batch, the alignments of both arrays and whether they are one.
struct Key {
    Batch b;
    bool in_place = false;
    int in_align = 0, out_align = 0;
    auto tie() const
    {
        return std::tie(b.kind, b.n, b.howmany, b.istride, b.idist, b.ostride, b.odist, b.sign,
                        in_place, in_align, out_align);
    }
    bool operator<(Key const& o) const { return tie() < o.tie(); }
};

/// Bytes one array of a batch spans: its last element's offset plus one, in elements of
/// `element` bytes.
std::size_t span_bytes(int n, int howmany, int stride, int dist, std::size_t element)
{
    if (n == 0 || howmany == 0) return element;
    return (std::size_t(n - 1) * std::size_t(stride) +
            std::size_t(howmany - 1) * std::size_t(dist) + 1) *
           element;
}

template <class R> class PlanCache {
public:
    using P = typename Fftw<R>::plan;

    static PlanCache& instance()
    {
        static auto* cache =
            new PlanCache;  // plans outlive every static destructor that may use them
        return *cache;
    }

    P get(Key const& k)
    {
        const std::lock_guard lock(planner_lock());
        if (auto it = plans_.find(k); it != plans_.end()) return it->second.plan;
        const bool measure = measuring.load() > 0;
        P p = make(k, measure);
        require(p != nullptr,
                "fft: FFTW could not plan a transform of length " + std::to_string(k.b.n));
        plans_.emplace(k, Entry{p, measure});
        return p;
    }

    bool measured(Key const& k)
    {
        const std::lock_guard lock(planner_lock());
        if (auto it = plans_.find(k); it != plans_.end()) return it->second.measured;
        return measuring.load() > 0;
    }

private:
    // Makes the plan of `k` on scratch arrays aligned as the caller's (under the lock).
    static P make(Key const& k, bool measure)
    {
        using C = typename Fftw<R>::complex;
        Batch const& b = k.b;
        const unsigned flags = (measure ? FFTW_MEASURE : FFTW_ESTIMATE);
        const SingleThreadedPlanning<R> one_thread;
        const std::size_t in_element = b.kind == Kind::r2c ? sizeof(R) : sizeof(C);
        const std::size_t out_element = b.kind == Kind::c2r ? sizeof(R) : sizeof(C);
        std::size_t in_bytes = span_bytes(b.n_in(), b.howmany, b.istride, b.idist, in_element);
        std::size_t out_bytes = span_bytes(b.n_out(), b.howmany, b.ostride, b.odist, out_element);
        if (k.in_place) in_bytes = out_bytes = std::max(in_bytes, out_bytes);
        AlignedScratch in(in_bytes, k.in_align);
        std::unique_ptr<AlignedScratch> out_scratch;
        void* out = in.get();
        if (!k.in_place) {
            out_scratch = std::make_unique<AlignedScratch>(out_bytes, k.out_align);
            out = out_scratch->get();
        }
        int n = b.n;
        switch (b.kind) {
        case Kind::c2c:
            return Fftw<R>::plan_c2c(1, &n, b.howmany, static_cast<C*>(in.get()), nullptr,
                                     b.istride, b.idist, static_cast<C*>(out), nullptr, b.ostride,
                                     b.odist, b.sign, flags);
        case Kind::r2c:
            return Fftw<R>::plan_r2c(1, &n, b.howmany, static_cast<R*>(in.get()), nullptr,
                                     b.istride, b.idist, static_cast<C*>(out), nullptr, b.ostride,
                                     b.odist, flags);
        case Kind::c2r:
            return Fftw<R>::plan_c2r(1, &n, b.howmany, static_cast<C*>(in.get()), nullptr,
                                     b.istride, b.idist, static_cast<R*>(out), nullptr, b.ostride,
                                     b.odist, flags);
        }
        return nullptr;
    }

    struct Entry {
        P plan;
        bool measured;
    };
    std::map<Key, Entry> plans_;
};

template <class R> void run(typename Fftw<R>::plan p, Kind kind, void* in, void* out)
{
    using C = typename Fftw<R>::complex;
    switch (kind) {
    case Kind::c2c:
        Fftw<R>::execute_c2c(p, static_cast<C*>(in), static_cast<C*>(out));
        break;
    case Kind::r2c:
        Fftw<R>::execute_r2c(p, static_cast<R*>(in), static_cast<C*>(out));
        break;
    case Kind::c2r:
        Fftw<R>::execute_c2r(p, static_cast<C*>(in), static_cast<R*>(out));
        break;
    }
}

template <class R> Key key_of(Batch const& b, void const* in, void const* out)
{
    Batch k = b;
    if (k.kind != Kind::c2c) k.sign = 0;
    return Key{k, in == out, alignment_of(in), alignment_of(out)};
}

}  // namespace

template <class R> void execute(Batch const& b, void* in, void* out)
{
    if (b.n == 0 || b.howmany == 0) return;
    run<R>(PlanCache<R>::instance().get(key_of<R>(b, in, out)), b.kind, in, out);
}

Measuring::Measuring() noexcept
{
    ++measuring;
}
Measuring::~Measuring()
{
    --measuring;
}

template <class R> bool measured(Batch const& b, void const* in, void const* out)
{
    return PlanCache<R>::instance().measured(key_of<R>(b, in, out));
}

std::string export_wisdom()
{
    const std::lock_guard lock(planner_lock());
    std::string text;
    for (char* w : {fftw_export_wisdom_to_string(), fftwf_export_wisdom_to_string()}) {
        if (!w) continue;
        text += w;
        std::free(w);
    }
    return text;
}

bool import_wisdom(std::string const& wisdom)
{
    // the text holds the double precision's wisdom, then the single's: "(fftw-3... fftwf_wisdom"
    const std::size_t single = wisdom.find("fftwf_wisdom");
    const std::size_t split =
        single == std::string::npos ? wisdom.size() : wisdom.rfind('(', single);
    const std::string d = wisdom.substr(0, split), s = wisdom.substr(split);
    const std::lock_guard lock(planner_lock());
    bool ok = true;
    if (d.find_first_not_of(" \t\r\n") != std::string::npos)
        ok = fftw_import_wisdom_from_string(d.c_str()) != 0;
    if (s.find_first_not_of(" \t\r\n") != std::string::npos)
        ok = fftwf_import_wisdom_from_string(s.c_str()) != 0 && ok;
    return ok;
}

template void execute<float>(Batch const&, void*, void*);
template void execute<double>(Batch const&, void*, void*);
template bool measured<float>(Batch const&, void const*, void const*);
template bool measured<double>(Batch const&, void const*, void const*);

}  // namespace tessera::fft::kernels::cpu
