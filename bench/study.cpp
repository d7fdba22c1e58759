// tessera-bench study: seed 001's scheduling study (Lima et al., sections 4.3 and 5), rerun on
// this machine. Four workloads, each under every policy asked for, on the CPU cores plus
// emulated devices (and GPUs where present):
//   saxpy     y = a x + y in single precision, in blocks, repeated: memory-bound;
//   jacobi    a 5-point stencil on a tiled grid, repeated sweeps (examples/jacobi2d.hpp);
//   cholesky  the tile Cholesky (tessera::potrf on a TileMatrix);
//   lu        the tile LU with partial pivoting (tessera::getrf on a TileMatrix).
// Per policy it reports the time (median of the repetitions), the data footprint (bytes moved
// per link, and in all) and the replicas' hit ratio (tasks whose data was all valid where they
// ran: Runtime::hit_stats), the two other measures of the seed. The peer is plain work
// stealing (ws), the seed's baseline, in the same run: ratio = its time over the policy's.
#include "bench/bench.hpp"
#include "examples/jacobi2d.hpp"

#include <tessera/tessera.hpp>
#if TESSERA_HAVE_CUDA
#include <tessera/rt/cuda.hpp>
#endif

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera::bench {
namespace {

namespace rt = tessera::rt;

struct Sizes {
    int64_t saxpy_n, saxpy_blocks, saxpy_iters;
    int64_t jacobi_n, jacobi_tiles, jacobi_sweeps;
    int64_t n, nb;  // cholesky and lu
};

// One run's counters, summed over the timed repetitions.
struct Counters {
    std::map<std::pair<rt::NodeId, rt::NodeId>, rt::LinkStats> links;
    uint64_t tasks = 0, hits = 0;
    void add(rt::Runtime& r)
    {
        for (rt::LinkStats const& l : r.link_stats()) {
            auto& sum = links[{l.src, l.dst}];
            sum.src = l.src;
            sum.dst = l.dst;
            sum.transfers += l.transfers;
            sum.bytes += l.bytes;
        }
        for (rt::NodeHitStats const& h : r.hit_stats()) {
            tasks += h.tasks;
            hits += h.hits;
        }
    }
};

// ---- the workloads: setup (not timed) and run (timed), on runtime r ----------------------------
class Workload {
public:
    virtual ~Workload() = default;
    virtual void setup() = 0;
    virtual void run() = 0;
    virtual double flops() const = 0;
};

void saxpy_block(rt::Vector<const float> x, rt::Vector<float> y, float a)
{
    for (int64_t i = 0; i < y.n; ++i) y[i] += a * x[i];
}
#if TESSERA_HAVE_CUDA
void saxpy_block_cuda(rt::CudaContext const& c, rt::Vector<const float> x, rt::Vector<float> y,
                      float a)
{
    rt::cuda_check(cublasSaxpy(c.cublas, int(y.n), &a, x.ptr, 1, y.ptr, 1), "cublasSaxpy");
}
constexpr auto* saxpy_cuda = &saxpy_block_cuda;
#else
constexpr std::nullptr_t saxpy_cuda = nullptr;
#endif
const rt::PerfModel saxpy_model{"study_saxpy"};
// On GPUs too, so that the policies choose between moving the blocks and keeping them on the
// cores (the seed's data footprint): a memory-bound kernel pays for its copy only where its
// data already is.
const rt::Codelet<rt::Vector<const float>, rt::Vector<float>, float> saxpy_codelet{
    .name = "saxpy",
    .cpu = &saxpy_block,
    .cuda = saxpy_cuda,
    .model = &saxpy_model,
    .flops = [](auto const& x, auto const&, auto const&) { return 2.0 * double(x.n); },
};

class Saxpy final : public Workload {
public:
    Saxpy(rt::Runtime& r, Sizes const& s)
        : r_(r), s_(s), x_(std::size_t(s.saxpy_n), 1.0f), y_(std::size_t(s.saxpy_n), 0.0f),
          hx_(r, rt::Vector<float>{x_.data(), s.saxpy_n}),
          hy_(r, rt::Vector<float>{y_.data(), s.saxpy_n}),
          xs_(rt::partition(hx_, rt::blocks(s.saxpy_blocks))),
          ys_(rt::partition(hy_, rt::blocks(s.saxpy_blocks)))
    {}
    void setup() override {}
    void run() override
    {
        for (int64_t it = 0; it < s_.saxpy_iters; ++it)
            for (int64_t b = 0; b < s_.saxpy_blocks; ++b)
                r_.submit(saxpy_codelet, read(xs_[b]), readwrite(ys_[b]), rt::value(0.5f));
        r_.wait_all();
    }
    double flops() const override { return 2.0 * double(s_.saxpy_n) * double(s_.saxpy_iters); }

private:
    rt::Runtime& r_;
    Sizes s_;
    std::vector<float> x_, y_;
    rt::Handle<rt::Vector<float>> hx_, hy_;
    rt::Partition<rt::Vector<float>> xs_, ys_;
};

class Jacobi final : public Workload {
public:
    Jacobi(rt::Runtime& r, Sizes const& s) : r_(r), s_(s), grid_(r, s.jacobi_n, s.jacobi_tiles) {}
    void setup() override {}
    void run() override
    {
        grid_.submit(int(s_.jacobi_sweeps));
        r_.wait_all();
    }
    double flops() const override
    {
        return 4.0 * double(s_.jacobi_n) * double(s_.jacobi_n) * double(s_.jacobi_sweeps);
    }

private:
    rt::Runtime& r_;
    Sizes s_;
    examples::Jacobi2d grid_;
};

class Cholesky final : public Workload {
public:
    Cholesky(rt::Runtime& r, Sizes const& s) : s_(s), A_(r, s.n, s.n, s.nb) {}
    void setup() override { generate_hpd(A_, 1e3, 1); }
    void run() override
    {
        int64_t info = potrf(Uplo::lower, A_);
        if (info != 0) throw Error("study: cholesky: potrf returned info " + std::to_string(info));
    }
    double flops() const override { return double(s_.n) * double(s_.n) * double(s_.n) / 3; }

private:
    Sizes s_;
    TileMatrix<double> A_;
};

class Lu final : public Workload {
public:
    Lu(rt::Runtime& r, Sizes const& s) : s_(s), A_(r, s.n, s.n, s.nb), ipiv_(A_) {}
    void setup() override { generate_random(A_, 1); }
    void run() override
    {
        int64_t info = getrf(A_, ipiv_);
        if (info != 0) throw Error("study: lu: getrf returned info " + std::to_string(info));
    }
    double flops() const override { return 2.0 * double(s_.n) * double(s_.n) * double(s_.n) / 3; }

private:
    Sizes s_;
    TileMatrix<double> A_;
    Pivots ipiv_;
};

std::unique_ptr<Workload> make_workload(std::string const& name, rt::Runtime& r, Sizes const& s)
{
    if (name == "saxpy") return std::make_unique<Saxpy>(r, s);
    if (name == "jacobi") return std::make_unique<Jacobi>(r, s);
    if (name == "cholesky") return std::make_unique<Cholesky>(r, s);
    if (name == "lu") return std::make_unique<Lu>(r, s);
    throw InvalidArgument("tessera-bench study: --workloads: unknown workload '" + name +
                          "' (saxpy, jacobi, cholesky, lu)");
}

struct Measure {
    double seconds = nan;
    double flops = nan;
    Counters counters;  // summed over the repetitions
    int64_t reps = 0;
};

Measure measure(std::string const& workload, std::string const& sched, Sizes const& s,
                rt::RuntimeConfig config, int64_t warmup, int64_t reps)
{
    config.scheduler = scheduler_of(sched);
    rt::Runtime r{config};
    auto w = make_workload(workload, r, s);
    for (int64_t i = 0; i < warmup; ++i) {  // the HEFT policies calibrate their models here
        w->setup();
        w->run();
    }
    Measure m;
    const auto nodes = rt::NodeId(r.memory_nodes().size());
    for (rt::NodeId src = 0; src < nodes; ++src)  // every link, used or not: aligned columns
        for (rt::NodeId dst = 0; dst < nodes; ++dst)
            if (src != dst) m.counters.links[{src, dst}] = rt::LinkStats{src, dst};
    std::vector<double> times;
    for (int64_t i = 0; i < reps; ++i) {
        w->setup();
        r.wait_all();
        r.reset_link_stats();
        times.push_back(seconds_of([&] { w->run(); }));
        m.counters.add(r);
    }
    m.seconds = median(times);
    m.flops = w->flops();
    m.reps = reps;
    return m;
}

int run(Options const& o, Report& report)
{
    const bool tiny = o.has("tiny");  // the size CI runs
    Sizes s{o.integer("saxpy-n", tiny ? 1 << 14 : 1 << 22),
            o.integer("saxpy-blocks", tiny ? 8 : 16),
            o.integer("saxpy-iters", tiny ? 3 : 10),
            o.integer("jacobi-n", tiny ? 64 : 1024),
            o.integer("jacobi-tiles", tiny ? 4 : 8),
            o.integer("jacobi-sweeps", tiny ? 3 : 10),
            o.integer("n", tiny ? 256 : 2048),
            o.integer("nb", tiny ? 64 : 256)};
    const int64_t reps = o.integer("reps", tiny ? 1 : 3),
                  warmup = o.integer("warmup", tiny ? 0 : 1);
    require(s.saxpy_n >= 1 && s.saxpy_blocks >= 1 && s.saxpy_blocks <= s.saxpy_n &&
                s.saxpy_iters >= 1,
            "--saxpy-n, --saxpy-blocks (at most saxpy-n) and --saxpy-iters must be positive");
    require(s.jacobi_tiles >= 1 && s.jacobi_n >= 3 && s.jacobi_n % s.jacobi_tiles == 0 &&
                s.jacobi_sweeps >= 1,
            "--jacobi-tiles must divide --jacobi-n (at least 3), and --jacobi-sweeps be positive");
    require(s.n >= 1 && s.nb >= 1 && reps >= 1 && warmup >= 0,
            "--n, --nb and --reps must be positive, --warmup at least 0");

    rt::RuntimeConfig config{.ncpus = int(o.integer("ncpus", 2)),
                             .nemu = int(o.integer("nemu", 2)),
                             .emu_bandwidth = o.text("emu-bandwidth", "2GB"),
                             .ncuda = o.given_integer("ncuda"),
                             .perfmodel_dir = "none"};
    if (auto mem = o.given_text("emu-memory")) config.emu_memory = *mem;
    auto scheds = o.policies({"ws", "dws", "law", "lws", "dmda", "dmdas"});
    auto workloads = o.list("workloads", {"saxpy", "jacobi", "cholesky", "lu"});

    for (std::string const& workload : workloads) {
        Measure ws = measure(workload, "ws", s, config, warmup, reps);
        for (std::string const& sched : scheds) {
            Measure m = sched == "ws" ? ws : measure(workload, sched, s, config, warmup, reps);
            Result res;
            res.bench = "study";
            res.variant = workload;
            res.labels = {{"sched", sched.empty() ? "default" : sched}};
            if (workload == "saxpy")
                res.sizes = {{"n", double(s.saxpy_n)},
                             {"blocks", double(s.saxpy_blocks)},
                             {"iters", double(s.saxpy_iters)}};
            else if (workload == "jacobi")
                res.sizes = {{"n", double(s.jacobi_n)},
                             {"tiles", double(s.jacobi_tiles)},
                             {"sweeps", double(s.jacobi_sweeps)}};
            else
                res.sizes = {{"n", double(s.n)}, {"nb", double(s.nb)}};
            res.seconds = m.seconds;
            res.gflops = m.flops / m.seconds * 1e-9;
            res.peer = "ws";
            res.peer_seconds = ws.seconds;
            res.ratio = ws.seconds / m.seconds;
            // per run: the repetitions' sums over their number
            double per_run = 1.0 / double(m.reps), bytes = 0, transfers = 0;
            for (auto const& [link, l] : m.counters.links) {
                bytes += double(l.bytes) * per_run;
                transfers += double(l.transfers) * per_run;
            }
            res.extra = {{"bytes", bytes},
                         {"transfers", transfers},
                         {"tasks", double(m.counters.tasks) * per_run},
                         {"hit_ratio", m.counters.tasks
                                           ? double(m.counters.hits) / double(m.counters.tasks)
                                           : nan}};
            for (auto const& [link, l] : m.counters.links) {
                std::string name = "link" + std::to_string(l.src) + "to" + std::to_string(l.dst);
                res.extra.push_back({name + "_bytes", double(l.bytes) * per_run});
                res.extra.push_back({name + "_transfers", double(l.transfers) * per_run});
            }
            report.add(res);
        }
    }
    return 0;
}

Register reg{{"study",
              "seed 001's study: saxpy, jacobi, cholesky and lu under each policy; time, bytes "
              "moved per link, hit ratio",
              "tessera-bench study [--workloads saxpy,jacobi,cholesky,lu] "
              "[--sched ws,dws,law,lws,dmda,dmdas] [--ncpus 2] [--nemu 2] [--emu-bandwidth 2GB] "
              "[--emu-memory SIZE] [--ncuda N] [--saxpy-n 4194304] [--saxpy-blocks 16] "
              "[--saxpy-iters 10] [--jacobi-n 1024] [--jacobi-tiles 8] [--jacobi-sweeps 10] "
              "[--n 2048] [--nb 256] [--reps 3] [--warmup 1] [--tiny] [--json]",
              {"workloads", "sched", "ncpus", "nemu", "emu-bandwidth", "emu-memory", "ncuda",
               "saxpy-n", "saxpy-blocks", "saxpy-iters", "jacobi-n", "jacobi-tiles",
               "jacobi-sweeps", "n", "nb", "reps", "warmup", "tiny"},
              run}};

}  // namespace
}  // namespace tessera::bench
