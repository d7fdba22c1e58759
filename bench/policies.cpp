// tessera-bench policies: the makespan of each scheduling policy, side by side, on a tiled-
// Cholesky-shaped task graph whose kernels have known costs per architecture (sleeps), on the
// CPU cores plus emulated devices of different speeds. The tiles are real registered data
// (nb x nb doubles), so that transfers count as they would: the policies that model them
// (dmda, dmdas, dmdasd) can be seen to use that. The peer is the eager policy in the same run.
//
//   for k:  POTRF(A_kk)                 cost 1 unit on a core
//           TRSM(A_kk, A_mk)     m > k  cost 2
//           SYRK(A_mk, A_mm)     m > k  cost 2
//           GEMM(A_mk, A_nk, A_mn)      cost 4
// Device speeds (default 4 and 2) divide every cost but POTRF's, which is twice slower there
// (a panel factorization suits a core better). Priorities follow the critical path.
#include "bench/bench.hpp"

#include <tessera/tessera.hpp>

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace tessera::bench {
namespace {

using namespace tessera::rt;

double unit_seconds = 200e-6;
std::vector<double> device_speed{4, 2};  // per emulated device
unsigned first_device_worker = 0;

/// The cost on the calling worker: the CPU cost, or on a device the cost over its speed.
void spend(double cpu_units, bool panel)
{
    double units = cpu_units;
    WorkerId w = Runtime::current_worker();
    if (w != no_worker && w >= first_device_worker) {
        double s = device_speed[(w - first_device_worker) % device_speed.size()];
        units = panel ? cpu_units * 2 : cpu_units / s;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(units * unit_seconds));
}

using Tile = Matrix<double>;
using CTile = Matrix<const double>;
constexpr PerfModel potrf_model{"bench_potrf_shape"}, trsm_model{"bench_trsm_shape"},
    syrk_model{"bench_syrk_shape"}, gemm_model{"bench_gemm_shape"};
const Codelet<Tile> potrf{
    .name = "potrf", .cpu = +[](Tile) { spend(1, true); }, .model = &potrf_model};
const Codelet<CTile, Tile> trsm{
    .name = "trsm", .cpu = +[](CTile, Tile) { spend(2, false); }, .model = &trsm_model};
const Codelet<CTile, Tile> syrk{
    .name = "syrk", .cpu = +[](CTile, Tile) { spend(2, false); }, .model = &syrk_model};
const Codelet<CTile, CTile, Tile> gemm{
    .name = "gemm", .cpu = +[](CTile, CTile, Tile) { spend(4, false); }, .model = &gemm_model};

void cholesky_graph(Runtime& r, Partition<Tile>& A, int64_t nt)
{
    for (int64_t k = 0; k < nt; ++k) {
        r.submit(potrf, readwrite(A(k, k)), priority(int(3 * (nt - k))));
        for (int64_t m = k + 1; m < nt; ++m)
            r.submit(trsm, read(A(k, k)), readwrite(A(m, k)), priority(int(3 * (nt - k) - 1)));
        for (int64_t m = k + 1; m < nt; ++m) {
            r.submit(syrk, read(A(m, k)), readwrite(A(m, m)), priority(int(3 * (nt - k) - 2)));
            for (int64_t n = k + 1; n < m; ++n)
                r.submit(gemm, read(A(m, k)), read(A(n, k)), readwrite(A(m, n)));
        }
    }
}

double makespan(std::string const& sched, int64_t nt, int64_t nb, int ncpus, int nemu,
                std::string const& bw, int64_t reps, std::vector<double>& times)
{
    // No GPU: the emulated devices are then the last workers, the ones spend() slows down.
    Runtime r{{.ncpus = ncpus,
               .scheduler = scheduler_of(sched),
               .nemu = nemu,
               .emu_bandwidth = bw,
               .ncuda = 0,
               .perfmodel_dir = "none"}};
    first_device_worker = unsigned(r.worker_count()) - unsigned(nemu);
    std::vector<double> a(std::size_t(nt * nb * nt * nb), 1.0);
    Handle h{r, Matrix<double>{a.data(), nt * nb, nt * nb, nt * nb}};
    auto A = partition(h, tiles(nt, nt));
    for (int calibration = 0; calibration < 8;
         ++calibration) {  // every kernel calibrated everywhere
        cholesky_graph(r, A, nt);
        r.wait_all();
    }
    for (int64_t i = 0; i < reps; ++i)
        times.push_back(seconds_of([&] {
            cholesky_graph(r, A, nt);
            r.wait_all();
        }));
    return median(times);
}

int run(Options const& o, Report& report)
{
    int64_t nt = o.integer("nt", 8), nb = o.integer("nb", 64), reps = o.integer("reps", 3);
    int ncpus = int(o.integer("ncpus", 2)), nemu = int(o.integer("nemu", 2));
    auto scheds = o.policies(policies().names());
    std::string bw = o.text("emu-bandwidth", "1GB");

    device_speed.clear();
    for (int64_t s : o.integers("speeds", {4, 2})) device_speed.push_back(double(s));
    const int64_t unit_us = o.integer("unit-us", 200);
    require(nt >= 1 && nb >= 1 && reps >= 1 && unit_us >= 1 && ncpus >= 1 && nemu >= 0,
            "--nt, --nb, --reps, --unit-us and --ncpus must be positive, --nemu at least 0");
    for (double s : device_speed) require(s >= 1, "--speeds must be positive");
    unit_seconds = double(unit_us) * 1e-6;

    std::vector<double> eager_times;
    double eager = makespan("eager", nt, nb, ncpus, nemu, bw, reps, eager_times);
    int64_t tasks = nt + nt * (nt - 1) + nt * (nt - 1) * (nt - 2) / 6;
    for (std::string const& sched : scheds) {
        std::vector<double> times;
        Result res;
        res.bench = "policies";
        res.variant = "cholesky_shape";
        res.labels = {{"sched", sched}};
        res.sizes = {{"nt", double(nt)},
                     {"tasks", double(tasks)},
                     {"ncpus", double(ncpus)},
                     {"nemu", double(nemu)}};
        res.seconds =
            sched == "eager" ? eager : makespan(sched, nt, nb, ncpus, nemu, bw, reps, times);
        res.peer = "eager";
        res.peer_seconds = eager;
        res.ratio = eager / res.seconds;
        report.add(res);
    }
    return 0;
}

Register reg{{"policies",
              "makespan of every policy on a Cholesky-shaped graph with known costs, CPUs + "
              "emulated devices",
              "tessera-bench policies [--nt 8] [--nb 64] [--ncpus 2] [--nemu 2] [--speeds 4,2] "
              "[--unit-us 200] "
              "[--emu-bandwidth 1GB] [--sched eager,dmdas,...] [--reps 3] [--json]",
              {"nt", "nb", "ncpus", "nemu", "speeds", "unit-us", "emu-bandwidth", "sched", "reps"},
              run}};

}  // namespace
}  // namespace tessera::bench
