// The runtime on its own: a codelet, two registered vectors cut in four, and four tasks.
#include <tessera/tessera.hpp>

#include <vector>

namespace rt = tessera::rt;

void axpy(rt::Vector<const double> x, rt::Vector<double> y, double a)  // y = a x + y
{
    for (int64_t i = 0; i < y.n; ++i) y[i] += a * x[i];
}
const rt::Codelet<rt::Vector<const double>, rt::Vector<double>, double> axpy_cl{
    .name = "axpy",
    .cpu = &axpy,
    .flops = [](auto const& x, auto const&, auto const&) { return 2.0 * double(x.n); },
};

int main()
{
    rt::Runtime rt;  // every core; TESSERA_NCPU, TESSERA_SCHED...
    std::vector<double> x(1000, 1.0), y(1000, 0.0);
    rt::Handle hx{rt, rt::Vector<double>{x.data(), 1000}};
    rt::Handle hy{rt, rt::Vector<double>{y.data(), 1000}};
    {
        auto xs = rt::partition(hx, rt::blocks(4));  // four sub-handles, no copy
        auto ys = rt::partition(hy, rt::blocks(4));
        for (int i = 0; i < 4; ++i)
            rt.submit(axpy_cl, read(xs[i]), readwrite(ys[i]), rt::value(2.0));
    }                                        // unpartition: waits for the pieces
    auto y_now = hy.acquire<rt::Mode::R>();  // host access, ordered with the tasks
    return y_now.view()[999] == 2.0 ? 0 : 1;
}
