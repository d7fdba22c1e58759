// tessera-bench transfers: a tiled DGEMM, C += A B in nb x nb tiles, on the CPU cores plus
// emulated accelerators (default 2), and what the runtime moved to do it: transfers and bytes
// per link (from the link statistics), total time and GFlop/s per policy. The tile kernel is
// OpenBLAS's dgemm, one thread per task; the peer is one multithreaded OpenBLAS dgemm of the
// whole matrices in the same run. The emulated links can be slowed (--emu-bandwidth, e.g.
// 2GB per second, --emu-latency in µs) and the devices' memory capped (--emu-mem) to see
// eviction at work.
#include "bench/bench.hpp"

#include <tessera/tessera.hpp>

#include <cblas.h>

#include <cmath>
#include <random>
#include <thread>
#include <vector>

namespace tessera::bench {
namespace {

using namespace tessera::rt;

void dgemm_tile(Matrix<const double> a, Matrix<const double> b, Matrix<double> c)
{
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(c.m), int(c.n), int(a.n), 1.0, a.ptr,
                int(a.ld), b.ptr, int(b.ld), 1.0, c.ptr, int(c.ld));
}
const Codelet<Matrix<const double>, Matrix<const double>, Matrix<double>> gemm_tile{
    .name = "dgemm_tile",
    .cpu = &dgemm_tile,
    .flops = [](auto const& a, auto const&,
                auto const& c) { return 2.0 * double(c.m) * double(c.n) * double(a.n); },
};

double norm_fro(std::vector<double> const& x)
{
    double s = 0;
    for (double v : x) s += v * v;
    return std::sqrt(s);
}

int run(Options const& o, Report& report)
{
    auto ns = o.integers("n", {2048});
    int64_t nb = o.integer("nb", 256), reps = o.integer("reps", 3);
    const int nemu = int(o.integer("nemu", 2));
    const std::optional<int> ncpus = o.given_integer("ncpus");
    auto scheds = o.policies(policies().names());
    const std::optional<std::string> mem = o.given_text("emu-mem"),
                                     bw = o.given_text("emu-bandwidth");
    double latency = double(o.integer("emu-latency", 0));
    require(nb >= 1 && reps >= 1, "--nb and --reps must be at least 1");
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());

    for (int64_t n : ns)
        require(n >= nb && n % nb == 0, "--n must be a multiple of --nb");  // before anything runs
    for (int64_t n : ns) {
        int64_t nt = n / nb;
        std::mt19937_64 gen(42);
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<double> A(std::size_t(n * n)), B(A.size()), C0(A.size());
        for (auto* v : {&A, &B, &C0})
            for (double& x : *v) x = u(gen);

        // the peer: one multithreaded dgemm over every core
        std::vector<double> Cref = C0;
        openblas_set_num_threads(int(cores));
        std::vector<double> peer;
        for (int64_t r = 0; r <= reps; ++r) {  // r = 0 warms up (OpenBLAS's threads start)
            Cref = C0;
            const double t = seconds_of([&] {
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0,
                            A.data(), int(n), B.data(), int(n), 1.0, Cref.data(), int(n));
            });
            if (r > 0) peer.push_back(t);
        }
        openblas_set_num_threads(1);  // the runtime owns the cores: one BLAS thread per task
        double flops = 2.0 * double(n) * double(n) * double(n);

        for (std::string const& sched : scheds) {
            Runtime r{{.ncpus = ncpus,
                       .scheduler = scheduler_of(sched),
                       .nemu = nemu,
                       .emu_memory = mem,
                       .emu_bandwidth = bw,
                       .emu_latency_us = latency}};
            std::vector<double> times;
            std::vector<double> C;
            std::vector<LinkStats> links;
            uint64_t evictions = 0;  // in the last repetition, as the links' figures
            auto evictions_so_far = [&r] {
                uint64_t e = 0;
                for (auto const& node : r.memory_nodes()) e += node.evictions;
                return e;
            };
            for (int64_t rep = 0; rep <= reps; ++rep) {  // rep = 0 warms up (the models calibrate)
                C = C0;
                r.reset_link_stats();
                const uint64_t evictions_before = evictions_so_far();
                const double t = seconds_of([&] {
                    Handle hA{r, Matrix<double>{A.data(), n, n, n}};
                    Handle hB{r, Matrix<double>{B.data(), n, n, n}};
                    Handle hC{r, Matrix<double>{C.data(), n, n, n}};
                    auto tA = partition(hA, tiles(nt, nt));
                    auto tB = partition(hB, tiles(nt, nt));
                    auto tC = partition(hC, tiles(nt, nt));
                    for (int64_t k = 0; k < nt; ++k)
                        for (int64_t j = 0; j < nt; ++j)
                            for (int64_t i = 0; i < nt; ++i)
                                r.submit(gemm_tile, read(tA(i, k)), read(tB(k, j)),
                                         readwrite(tC(i, j)));
                    r.wait_all();
                });  // includes unpartition and unregister: C is back home, complete
                if (rep > 0) times.push_back(t);
                links = r.link_stats();
                evictions = evictions_so_far() - evictions_before;
            }
            std::vector<double> diff(C.size());
            for (std::size_t i = 0; i < C.size(); ++i) diff[i] = C[i] - Cref[i];
            Result res;
            res.bench = "transfers";
            res.variant = "dgemm_tiled";
            res.labels = {{"sched", sched}, {"workers", std::to_string(r.worker_count())}};
            res.sizes = {{"n", double(n)}, {"nb", double(nb)}, {"nemu", double(nemu)}};
            res.seconds = median(times);
            res.gflops = flops / res.seconds * 1e-9;
            res.peer = "openblas_dgemm";
            res.peer_seconds = median(peer);
            res.peer_gflops = flops / res.peer_seconds * 1e-9;
            res.ratio = res.peer_seconds / res.seconds;
            // ||C - C_ref||_F / (||A||_F ||B||_F n eps)
            res.residual =
                norm_fro(diff) / (norm_fro(A) * norm_fro(B) * double(n) * 2.220446049250313e-16);
            // every host <-> device link, in both directions (zeros included: stable columns)
            double total_bytes = 0;
            auto add_link = [&](NodeId src, NodeId dst) {
                LinkStats s{src, dst, 0, 0};
                for (LinkStats const& l : links)
                    if (l.src == src && l.dst == dst) s = l;
                std::string name = "link_" + std::to_string(src) + "_" + std::to_string(dst);
                res.extra.push_back({name + "_transfers", double(s.transfers)});
                res.extra.push_back({name + "_MB", double(s.bytes) / 1e6});
                total_bytes += double(s.bytes);
            };
            for (NodeId d = 1; d <= NodeId(nemu); ++d) {
                add_link(host_node, d);
                add_link(d, host_node);
            }
            res.extra.push_back({"total_MB", total_bytes / 1e6});
            res.extra.push_back({"evictions", double(evictions)});
            report.add(res);
        }
    }
    return 0;
}

Register reg{
    {"transfers",
     "tiled DGEMM on CPUs + emulated devices: transfers and bytes per link, time, GFlop/s",
     "tessera-bench transfers [--n 2048] [--nb 256] [--nemu 2] [--sched eager,ws,...] [--ncpus k] "
     "[--emu-mem 64MB] [--emu-bandwidth 2GB] [--emu-latency 10] [--reps 3] [--json]",
     {"n", "nb", "nemu", "ncpus", "sched", "emu-mem", "emu-bandwidth", "emu-latency", "reps"},
     run}};

}  // namespace
}  // namespace tessera::bench
