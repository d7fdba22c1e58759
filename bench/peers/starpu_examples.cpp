#include "bench/peers/starpu_examples.hpp"

#include <tessera/error.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace tessera::bench::peers {

namespace fs = std::filesystem;

std::string starpu_examples_dir()
{
    if (char const* dir = std::getenv("TESSERA_STARPU_EXAMPLES"); dir && *dir)
        return fs::is_directory(dir) ? dir : "";
    for (char const* dir :
         {"/usr/lib/x86_64-linux-gnu/starpu/examples", "/usr/lib/aarch64-linux-gnu/starpu/examples",
          "/usr/lib/starpu/examples", "/usr/local/lib/starpu/examples"})
        if (fs::is_directory(dir)) return dir;
    return "";
}

std::string starpu_example_for(std::string const& routine, char letter)
{
    std::string program;
    if (routine == "potrf" && letter == 's') program = "cholesky_implicit";
    if (routine == "getrf" && letter == 'd') program = "lu_implicit_example_double";
    const std::string dir = starpu_examples_dir();
    if (program.empty() || dir.empty() || !fs::exists(fs::path(dir) / program)) return "";
    return program;
}

std::vector<int64_t> starpu_block_counts(int64_t n)
{
    std::vector<int64_t> out;
    for (int64_t target : {256, 384, 512}) {
        int64_t best = 0;
        for (int64_t b = 1; b <= n; ++b)  // blocks of n / b, equal: b divides n
            if (n % b == 0 && (best == 0 || std::abs(n / b - target) < std::abs(n / best - target)))
                best = b;
        if (std::find(out.begin(), out.end(), best) == out.end()) out.push_back(best);
    }
    return out;
}

namespace {

/// A shell word: the path and the directory come from the environment.
std::string quoted(std::string const& s)
{
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

StarpuExampleRun run_starpu_example(std::string const& program, int64_t n, int64_t nblocks,
                                    int ncpus, bool check, std::string const& models)
{
    const std::string path = (fs::path(starpu_examples_dir()) / program).string();
    const bool lu = program.starts_with("lu_");
    std::ostringstream cmd;
    cmd << "STARPU_NCPU=" << ncpus << " STARPU_NCUDA=0 STARPU_NOPENCL=0 STARPU_SCHED=dmdas "
        << "STARPU_SILENT=1 STARPU_HOME=" << quoted(models) << ' ' << quoted(path) << " -size " << n
        << " -nblocks " << nblocks << (lu ? " -piv" : "") << (check ? " -check" : "") << " 2>&1";
    FILE* pipe = ::popen(cmd.str().c_str(), "r");
    require(pipe != nullptr, "--peer starpu: cannot run " + path);
    std::string output;
    char buffer[4096];
    while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
    const int status = ::pclose(pipe);
    auto fail = [&](std::string const& why) {
        throw Error("--peer starpu: " + program + " -size " + std::to_string(n) + " -nblocks " +
                    std::to_string(nblocks) + ": " + why + "; its output:\n" + output);
    };
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1));

    StarpuExampleRun run;
    // "# size	ms	GFlop/s" then "<n>	<ms>	<gflops>": the factorization alone
    std::istringstream lines(output);
    bool header = false, timed = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("# size")) {
            header = true;
        } else if (header && !timed) {
            std::istringstream fields(line);
            int64_t size = 0;
            double ms = 0, gflops = 0;
            if (fields >> size >> ms && size == n) {
                // whole ms, or GFlop/s to one decimal over its own count (n^3/3 for Cholesky,
                // 2n^3/3 for LU): whichever is the finer
                run.seconds = ms * 1e-3;
                const double flop = (lu ? 2.0 : 1.0) * double(n) * double(n) * double(n) / 3;
                if (fields >> gflops && gflops > 0 && 0.05 / gflops < 0.5 / std::max(ms, 1.0))
                    run.seconds = flop / (gflops * 1e9);
                timed = true;
            }
        }
        // the LU example's check: ||PA - LU||_F / (||A||_F n), without the eps of ours
        if (auto at = line.find("/ (||A||*N) :"); at != std::string::npos)
            run.residual = std::atof(line.c_str() + at + 13) / DBL_EPSILON;
    }
    if (!timed || !(run.seconds > 0)) fail("no timing line");
    return run;
}

}  // namespace tessera::bench::peers
