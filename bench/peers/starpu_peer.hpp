// StarPU 1.3 as a peer of the runtime benchmarks, when it is installed (Debian's
// libstarpu-dev; configure finds it with pkg-config starpu-1.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::bench::peers {

/// True when tessera-bench was built with StarPU.
bool starpu_available() noexcept;

/// One StarPU session (starpu_init .. starpu_shutdown) with `ncpus` CPU workers and policy
/// `sched` (StarPU knows eager, prio, random, ws and lws by the same names).
class StarPU {
public:
    StarPU(int ncpus, std::string const& sched);
    ~StarPU();
    StarPU(StarPU const&) = delete;
    StarPU& operator=(StarPU const&) = delete;

    /// Seconds to submit and run n empty tasks end to end: "independent" (no data), "chain"
    /// (each task RW on one variable) or "grid" (task (i, j) RW on row i and column j).
    double empty_tasks_seconds(std::string const& shape, int64_t n);

private:
    bool started_ = false;
};

}  // namespace tessera::bench::peers
