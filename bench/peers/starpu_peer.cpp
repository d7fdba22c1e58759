#include "bench/peers/starpu_peer.hpp"

#include "bench/bench.hpp"

#include <tessera/error.hpp>

#include <cmath>
#include <vector>

#if TESSERA_HAVE_STARPU
#include <starpu.h>
#endif

namespace tessera::bench::peers {

#if TESSERA_HAVE_STARPU

namespace {
void empty_kernel(void**, void*)
{}

starpu_codelet codelet(int nbuffers)
{
    starpu_codelet cl{};
    cl.where = STARPU_CPU;
    cl.cpu_funcs[0] = empty_kernel;
    cl.nbuffers = nbuffers;
    for (int i = 0; i < nbuffers; ++i) cl.modes[i] = STARPU_RW;
    cl.name = "empty";
    return cl;
}

void submit(starpu_codelet* cl, std::initializer_list<starpu_data_handle_t> handles)
{
    starpu_task* t = starpu_task_create();
    t->cl = cl;
    int i = 0;
    for (auto h : handles) t->handles[i++] = h;
    require(starpu_task_submit(t) == 0, "StarPU: starpu_task_submit failed");
}
}  // namespace

bool starpu_available() noexcept
{
    return true;
}

StarPU::StarPU(int ncpus, std::string const& sched)
{
    starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncpus = ncpus;
    conf.ncuda = 0;
    conf.nopencl = 0;
    conf.sched_policy_name = sched.c_str();
    require(starpu_init(&conf) == 0, "StarPU: starpu_init failed");
    started_ = true;
}

StarPU::~StarPU()
{
    if (started_) starpu_shutdown();
}

double StarPU::empty_tasks_seconds(std::string const& shape, int64_t n)
{
    if (shape == "independent") {
        starpu_codelet cl = codelet(0);
        return seconds_of([&] {
            for (int64_t i = 0; i < n; ++i) submit(&cl, {});
            starpu_task_wait_for_all();
        });
    }
    if (shape == "chain") {
        starpu_codelet cl = codelet(1);
        int64_t x = 0;
        starpu_data_handle_t h;
        starpu_variable_data_register(&h, STARPU_MAIN_RAM, uintptr_t(&x), sizeof x);
        double s = seconds_of([&] {
            for (int64_t i = 0; i < n; ++i) submit(&cl, {h});
            starpu_task_wait_for_all();
        });
        starpu_data_unregister(h);
        return s;
    }
    // grid: side x side tasks, (i, j) after (i-1, j) through column j and (i, j-1) through row i
    int64_t side = std::max<int64_t>(1, int64_t(std::lround(std::sqrt(double(n)))));
    starpu_codelet cl = codelet(2);
    auto count = std::size_t(side);
    std::vector<int64_t> rows(count), cols(count);
    std::vector<starpu_data_handle_t> hr(count), hc(count);
    for (int64_t i = 0; i < side; ++i) {
        starpu_variable_data_register(&hr[std::size_t(i)], STARPU_MAIN_RAM,
                                      uintptr_t(&rows[std::size_t(i)]), sizeof(int64_t));
        starpu_variable_data_register(&hc[std::size_t(i)], STARPU_MAIN_RAM,
                                      uintptr_t(&cols[std::size_t(i)]), sizeof(int64_t));
    }
    double s = seconds_of([&] {
        for (int64_t i = 0; i < side; ++i)
            for (int64_t j = 0; j < side; ++j)
                submit(&cl, {hr[std::size_t(i)], hc[std::size_t(j)]});
        starpu_task_wait_for_all();
    });
    for (int64_t i = 0; i < side; ++i) {
        starpu_data_unregister(hr[std::size_t(i)]);
        starpu_data_unregister(hc[std::size_t(i)]);
    }
    return s;
}

#else

bool starpu_available() noexcept
{
    return false;
}
StarPU::StarPU(int, std::string const&)
{
    throw Error("tessera-bench was built without StarPU");
}
StarPU::~StarPU() = default;
double StarPU::empty_tasks_seconds(std::string const&, int64_t)
{
    return nan;
}

#endif

}  // namespace tessera::bench::peers
