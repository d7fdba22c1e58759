// tessera-bench potrf --grid PxQ, under mpirun: the library's tile Cholesky (tessera::potrf,
// unchanged) on a 2D block-cyclic TileMatrix placed by owner computes (rt::mpi::Context),
// against ScaLAPACK's pdpotrf on the same P x Q grid (row-major, as BLACS numbers it) and the
// same matrix, in the same run. Each rank fills the blocks it owns from their indices alone;
// both place block (I, J) on rank (I mod P) Q + (J mod Q), so that each rank compares its own
// blocks of the two factors (the residual). Rank 0 reports; the times run from a barrier to
// the barrier after the last rank's end.
#include "bench/bench.hpp"
#include "bench/distributed.hpp"

#include <tessera/rt/mpi.hpp>
#include <tessera/tessera.hpp>

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#if TESSERA_BENCH_HAS_SCALAPACK
extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, char const* order, int rows, int cols);
void Cblacs_gridexit(int context);
int numroc_(int const* n, int const* nb, int const* iproc, int const* isrcproc, int const* nprocs);
void descinit_(int* desc, int const* m, int const* n, int const* mb, int const* nb,
               int const* irsrc, int const* icsrc, int const* context, int const* lld, int* info);
void pdpotrf_(char const* uplo, int const* n, double* a, int const* ia, int const* ja,
              int const* desc, int* info);
}
#endif

namespace tessera::bench {

namespace {

/// Element (i, j) of the benchmark's matrix, from its indices alone: a symmetric hash in
/// [-0.5, 0.5), plus n on the diagonal (positive definite, well conditioned).
double element(int64_t i, int64_t j, int64_t n)
{
    if (i < j) std::swap(i, j);
    uint64_t h = uint64_t(i) * 0x9E3779B97F4A7C15ull + uint64_t(j) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    const double v = double(h >> 11) * 0x1p-53 - 0.5;
    return i == j ? v + double(n) : v;
}

struct Grid {
    int p = 1, q = 1;
    int owner(int64_t i, int64_t j) const { return int(i % p) * q + int(j % q); }
};

Grid parse_grid(std::string const& text, int ranks)
{
    const auto x = text.find('x');
    Grid g;
    try {
        require(x != std::string::npos, "");
        g.p = std::stoi(text.substr(0, x));
        g.q = std::stoi(text.substr(x + 1));
    } catch (std::exception const&) {
        throw InvalidArgument("--grid: '" + text + "' is not PxQ (e.g. 2x2)");
    }
    require(g.p >= 1 && g.q >= 1 && g.p * g.q == ranks,
            "--grid " + text + ": " + std::to_string(g.p * g.q) +
                " processes, but mpirun started " + std::to_string(ranks));
    return g;
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Tessera's factor of order n in tiles of nb on grid g: the median time of `reps` runs after
/// a warm-up, and this rank's blocks of the last factor (block (I, J) at blocks[(I, J)]). With
/// a `trace` path, the last run's trace goes to "<trace>.rank<r>" on each rank r.
struct TesseraRun {
    double seconds = nan;
    std::vector<std::vector<double>> blocks;  // this rank's lower blocks, column-major nb x nb
    std::vector<std::pair<int64_t, int64_t>> where;
};

TesseraRun tessera_potrf(int64_t n, int64_t nb, Grid g, int ncpus, int reps,
                         std::string const& trace)
{
    rt::Runtime r{rt::RuntimeConfig{.ncpus = ncpus}};
    TesseraRun out;
    std::vector<double> times;
    for (int rep = 0; rep <= reps; ++rep) {
        rt::mpi::Context mpi{r};
        auto A = TileMatrix<double>::with_local_tiles(  // this rank's tiles, and room for copies
            r, n, n, nb, [&](int64_t i, int64_t j) { return g.owner(i, j) == mpi.rank(); });
        for (int64_t j = 0; j < A.nt(); ++j)
            for (int64_t i = 0; i < A.mt(); ++i) {
                mpi.register_data(A(i, j), g.owner(i, j), int(i + j * A.mt()));
                if (g.owner(i, j) != mpi.rank() || i < j) continue;
                auto tile = A(i, j).acquire<rt::Mode::W>();
                for (int64_t c = 0; c < A.tile_n(j); ++c)
                    for (int64_t e = 0; e < A.tile_m(i); ++e)
                        tile.view()(e, c) = element(i * nb + e, j * nb + c, n);
            }
        const bool traced = rep == reps && !trace.empty();
        if (traced) r.start_trace(trace + ".rank" + std::to_string(mpi.rank()));
        mpi.barrier();
        const auto start = Clock::now();
        const int64_t info = potrf(Uplo::lower, A);
        mpi.wait_all();
        mpi.barrier();
        if (rep > 0) times.push_back(seconds_since(start));  // rep 0 warms up
        if (traced) r.stop_trace();
        require(info == 0,
                "potrf --grid: Tessera's factorization returned info " + std::to_string(info));
        if (rep < reps) continue;
        for (int64_t j = 0; j < A.nt(); ++j)
            for (int64_t i = j; i < A.mt(); ++i)
                if (g.owner(i, j) == mpi.rank()) {
                    auto tile = A(i, j).acquire<rt::Mode::R>();
                    std::vector<double> b(std::size_t(A.tile_m(i) * A.tile_n(j)));
                    for (int64_t c = 0; c < A.tile_n(j); ++c)
                        for (int64_t e = 0; e < A.tile_m(i); ++e)
                            b[std::size_t(e + c * A.tile_m(i))] = tile.view()(e, c);
                    out.blocks.push_back(std::move(b));
                    out.where.push_back({i, j});
                }
    }
    out.seconds = median(times);
    return out;
}

#if TESSERA_BENCH_HAS_SCALAPACK
/// ScaLAPACK's pdpotrf of the same matrix on grid g in blocks of nb: the median time of `reps`
/// runs after a warm-up, and this rank's local array of the last factor (leading dimension
/// *lld).
double scalapack_potrf(int64_t n64, int nb, Grid g, int rank, int reps, std::vector<double>& local,
                       int& lld)
{
    const int n = int(n64), zero = 0, one = 1;
    int context = 0;
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, "Row", g.p, g.q);
    const int prow = rank / g.q, pcol = rank % g.q;
    const int rows = numroc_(&n, &nb, &prow, &zero, &g.p),
              cols = numroc_(&n, &nb, &pcol, &zero, &g.q);
    lld = std::max(1, rows);
    int desc[9], info = 0;
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
    require(info == 0, "potrf --grid: ScaLAPACK's descinit returned " + std::to_string(info));
    std::vector<double> times;
    for (int rep = 0; rep <= reps; ++rep) {
        local.assign(std::size_t(lld) * std::size_t(std::max(1, cols)), 0.0);
        for (int lc = 0; lc < cols; ++lc)
            for (int lr = 0; lr < rows; ++lr) {  // local (lr, lc) is global (i, j)
                const int64_t i = (int64_t(lr / nb) * g.p + prow) * nb + lr % nb;
                const int64_t j = (int64_t(lc / nb) * g.q + pcol) * nb + lc % nb;
                local[std::size_t(lr + int64_t(lc) * lld)] = element(i, j, n64);
            }
        MPI_Barrier(MPI_COMM_WORLD);
        const auto start = Clock::now();
        pdpotrf_("L", &n, local.data(), &one, &one, desc, &info);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rep > 0) times.push_back(seconds_since(start));
        require(info == 0,
                "potrf --grid: ScaLAPACK's pdpotrf returned info " + std::to_string(info));
    }
    Cblacs_gridexit(context);
    return median(times);
}
#endif

/// The tile size of the distributed potrf: about n / 10, from 256 to 768 in steps of 64. With
/// one worker per rank, larger tiles run the kernels faster and still leave each rank a column
/// of tiles to update while the next panel is factored (2 ranks, n = 8000: 2.22 s in tiles of
/// 256, 1.64 s in tiles of 768; docs/benchmarks.md).
int64_t distributed_tile_size(int64_t n)
{
    return std::clamp<int64_t>(n / 10 / 64 * 64, 256, 768);
}

/// The workers of one rank: the cores its binding allows (mpirun binds each of 1 or 2 ranks
/// to one core by default), or its share of the machine's when it is not bound.
int cores_per_rank(int ranks)
{
    const int machine = int(std::max(1u, std::thread::hardware_concurrency()));
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) < machine)
        return std::max(1, CPU_COUNT(&allowed));
    return std::max(1, machine / ranks);
}

}  // namespace

int run_distributed(std::string const& routine, Options const& o, Report& report)
{
    require(routine == "potrf", "--grid: only potrf runs distributed so far, not " + routine);
    require(o.text("precision", "d") == "d",
            "--grid: the distributed potrf runs in double precision");
    require(o.text("uplo", "L") == "L", "--grid: the distributed potrf factors the lower triangle");
    int initialized = 0, level = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &level);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const Grid g = parse_grid(o.text("grid", ""), ranks);
    if (rank != 0) report.mute();  // rank 0 prints; every rank checks the residual bound
    const int reps = int(o.integer("reps", 3)), peer_reps = int(o.integer("peer-reps", reps));
    const int ncpus = o.given_integer("ncpus").value_or(cores_per_rank(ranks));
    for (int64_t n : o.integers("n", {4000})) {
        const int64_t nb = o.integer("nb", 0) > 0 ? o.integer("nb", 0) : distributed_tile_size(n);
        Result res;
        res.bench = "potrf";
        res.variant = "dpotrf";
        res.sizes = {{"n", double(n)}, {"nb", double(nb)}};
        res.labels = {{"grid", std::to_string(g.p) + "x" + std::to_string(g.q)}};
        res.extra = {{"ranks", double(ranks)}, {"cpus_per_rank", double(ncpus)}};
        const double flops = double(n) * double(n) * double(n) / 3.0;
        double peer_seconds = nan, residual = nan;
#if TESSERA_BENCH_HAS_SCALAPACK
        // ScaLAPACK first, before the Context's progress thread takes MPI over; the best of a
        // few block sizes, as a user tuning it would
        std::vector<double> best_local;
        int best_lld = 1, best_nb = 0;
        for (int64_t pnb : o.integers("peer-nb", {64, 128, 256})) {
            std::vector<double> local;
            int lld = 1;
            const double s = scalapack_potrf(n, int(pnb), g, rank, peer_reps, local, lld);
            if (!(s >= peer_seconds)) {
                peer_seconds = s;
                best_local = std::move(local);
                best_lld = lld;
                best_nb = int(pnb);
            }
        }
        res.peer = "scalapack_pdpotrf";
        res.extra.push_back({"peer_nb", double(best_nb)});
#endif
        const TesseraRun t = tessera_potrf(n, nb, g, ncpus, reps, o.text("trace", ""));
#if TESSERA_BENCH_HAS_SCALAPACK
        // this rank's blocks of both factors, with ScaLAPACK's in blocks of nb too, so that each
        // rank holds the same blocks of both
        std::vector<double> same_nb;
        int same_lld = best_lld;
        if (best_nb != nb) scalapack_potrf(n, int(nb), g, rank, 1, same_nb, same_lld);
        std::vector<double> const& peer_local = best_nb == nb ? best_local : same_nb;
        double diff = 0, largest = 0;
        for (std::size_t b = 0; b < t.blocks.size(); ++b) {
            const auto [bi, bj] = t.where[b];
            const int64_t cols = std::min(nb, n - bj * nb),
                          rows = int64_t(t.blocks[b].size()) / cols;
            const int64_t li = bi / g.p, lj = bj / g.q;  // the block's place in the local array
            for (int64_t c = 0; c < cols; ++c)
                for (int64_t e = bi == bj ? c : 0; e < rows; ++e) {  // the factor's part of it
                    const double s =
                        peer_local[std::size_t(li * nb + e + (lj * nb + c) * same_lld)];
                    diff = std::max(diff, std::abs(t.blocks[b][std::size_t(e + c * rows)] - s));
                    largest = std::max(largest, std::abs(s));
                }
        }
        double both[2] = {diff, largest}, worst[2] = {0, 0};
        MPI_Allreduce(both, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        residual = worst[0] / (worst[1] * double(n) * 0x1p-52);
#endif
        res.seconds = t.seconds;
        res.gflops = flops / t.seconds * 1e-9;
        res.peer_seconds = peer_seconds;
        res.peer_gflops = flops / peer_seconds * 1e-9;
        res.ratio = peer_seconds / t.seconds;
        res.residual = residual;  // |L - L_ScaLAPACK| / (|L| n eps); NaN without ScaLAPACK
        report.add(res);
    }
    if (!initialized) MPI_Finalize();
    return 0;
}

}  // namespace tessera::bench
