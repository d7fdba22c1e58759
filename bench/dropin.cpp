// tessera-bench dropin: the drop-in LAPACK (libtessera_lapack.so) against the library it
// stands in front of (OpenBLAS), symbol for symbol, in the same run: for each routine and n,
// a warm-up call of each, then --reps timed calls of the drop-in's symbol and of OpenBLAS's
// on fresh copies of the inputs (copies not timed), medians and the ratio (OpenBLAS time /
// drop-in time: above 1, the drop-in is faster). The drop-in is opened with dlopen after
// TESSERA_LAPACK_MIN_N is set from --min-n: 0 (the default) sends every call to Tessera, which
// measures where Tessera's crossover lies (scripts/dropin-crossover.sh); "table" leaves the
// measured table in force, which checks that the drop-in is never slower than OpenBLAS.
// diff_vs_peer is ||X - X_openblas||_F / ||X_openblas||_F of the routine's output.
#include "bench/bench.hpp"

#include <tessera/error.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#ifndef TESSERA_DROPIN_LIBRARY
#define TESSERA_DROPIN_LIBRARY "libtessera_lapack.so"
#endif

namespace tessera::bench {
namespace {

using std::size_t;

/// The inputs of one call and the call itself, through a symbol of either library.
struct Case {
    std::function<void()> prepare;                // fresh copies of the inputs (not timed)
    std::function<void(void* symbol)> call;       // the call, through `symbol`
    std::function<std::vector<double>()> output;  // what the call computed, as doubles
    double order = 0;                             // as the drop-in's crossover measures it
};

template <class T> T random_scalar(std::mt19937_64& g)
{
    std::uniform_real_distribution<double> u(-1, 1);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
        return T(u(g));
    else
        return T(u(g), u(g));
}

template <class T> std::vector<double> as_doubles(std::vector<T> const& v)
{
    std::vector<double> d;
    for (T const& x : v) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
            d.push_back(double(x));
        else {
            d.push_back(double(x.real()));
            d.push_back(double(x.imag()));
        }
    }
    return d;
}

/// Builds the case of routine `r` (without its precision letter) at order n in precision T.
/// Factors needed as inputs (potrs's, getrs's ...) come from `peer`, OpenBLAS's symbols.
template <class T>
Case make_case(std::string const& r, char p, int n, std::function<void*(std::string const&)> peer)
{
    std::mt19937_64 gen(uint64_t(n) * 7 + 1);
    const int nrhs = std::max(1, n / 10);
    const size_t nn = size_t(n) * n;
    auto a0 = std::make_shared<std::vector<T>>(nn),
         b0 = std::make_shared<std::vector<T>>(size_t(n) * nrhs);
    for (T& x : *a0) x = random_scalar<T>(gen);
    for (T& x : *b0) x = random_scalar<T>(gen);
    const bool spd = r.starts_with("po") || r == "trsm" || r == "trmm";
    if (spd) {  // Hermitian, diagonally dominant: positive definite and well conditioned
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < j; ++i)
                (*a0)[i + size_t(j) * n] = (*a0)[j + size_t(i) * n] =
                    T(std::real((*a0)[i + size_t(j) * n]));
            (*a0)[j + size_t(j) * n] = T(n);
        }
    }
    auto a = std::make_shared<std::vector<T>>(), b = std::make_shared<std::vector<T>>();
    auto c = std::make_shared<std::vector<T>>(nn);
    auto ipiv = std::make_shared<std::vector<int>>(std::max(1, n));
    auto tau = std::make_shared<std::vector<T>>(std::max(1, n));
    const int lwork = std::max({1, 64 * n, n * nrhs});
    auto work = std::make_shared<std::vector<T>>(size_t(lwork));
    int info = 0;
    char const* L = "L";
    auto fresh = [=] {
        *a = *a0;
        *b = *b0;
    };
    Case k;
    k.output = [=] { return as_doubles(*a); };
    const int ld = std::max(1, n);
    // Inputs that are factors: computed once by OpenBLAS.
    auto factor_with = [&](std::string const& name) {
        fresh();
        void* f = peer(std::string(1, p) + name);
        if (name == "potrf")
            reinterpret_cast<void (*)(char const*, int const*, T*, int const*, int*, size_t)>(f)(
                L, &n, a->data(), &ld, &info, 1);
        if (name == "getrf")
            reinterpret_cast<void (*)(int const*, int const*, T*, int const*, int*, int*)>(f)(
                &n, &n, a->data(), &ld, ipiv->data(), &info);
        if (name == "geqrf" || name == "gelqf")
            reinterpret_cast<void (*)(int const*, int const*, T*, int const*, T*, T*, int const*,
                                      int*)>(f)(&n, &n, a->data(), &ld, tau->data(), work->data(),
                                                &lwork, &info);
        *a0 = *a;
    };
    if (r == "potrf" || r == "potri") {
        if (r == "potri") factor_with("potrf");
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(char const*, int const*, T*, int const*, int*, size_t)>(f)(
                L, &n, a->data(), &ld, &info, 1);
        };
        k.order = n;
    } else if (r == "potrs" || r == "posv") {
        if (r == "potrs") factor_with("potrf");
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(char const*, int const*, int const*, T*, int const*, T*,
                                      int const*, int*, size_t)>(f)(L, &n, &nrhs, a->data(), &ld,
                                                                    b->data(), &ld, &info, 1);
        };
        k.output = [=] { return as_doubles(*b); };
        k.order = r == "posv" ? n : std::cbrt(double(n) * n * nrhs);
    } else if (r == "getrf") {
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(int const*, int const*, T*, int const*, int*, int*)>(f)(
                &n, &n, a->data(), &ld, ipiv->data(), &info);
        };
        k.order = n;
    } else if (r == "getrs") {
        factor_with("getrf");
        char const* N = "N";
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(char const*, int const*, int const*, T const*, int const*,
                                      int const*, T*, int const*, int*, size_t)>(f)(
                N, &n, &nrhs, a->data(), &ld, ipiv->data(), b->data(), &ld, &info, 1);
        };
        k.output = [=] { return as_doubles(*b); };
        k.order = std::cbrt(double(n) * n * nrhs);
    } else if (r == "gesv") {
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(int const*, int const*, T*, int const*, int*, T*, int const*,
                                      int*)>(f)(&n, &nrhs, a->data(), &ld, ipiv->data(), b->data(),
                                                &ld, &info);
        };
        k.output = [=] { return as_doubles(*b); };
        k.order = n;
    } else if (r == "getri") {
        factor_with("getrf");
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(int const*, T*, int const*, int const*, T*, int const*,
                                      int*)>(f)(&n, a->data(), &ld, ipiv->data(), work->data(),
                                                &lwork, &info);
        };
        k.order = n;
    } else if (r == "geqrf" || r == "gelqf") {
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(int const*, int const*, T*, int const*, T*, T*, int const*,
                                      int*)>(f)(&n, &n, a->data(), &ld, tau->data(), work->data(),
                                                &lwork, &info);
        };
        k.order = n;
    } else if (r == "orgqr" || r == "ungqr" || r == "orglq" || r == "unglq") {
        factor_with(r.ends_with("lq") ? "gelqf" : "geqrf");
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(int const*, int const*, int const*, T*, int const*, T const*,
                                      T*, int const*, int*)>(f)(
                &n, &n, &n, a->data(), &ld, tau->data(), work->data(), &lwork, &info);
        };
        k.order = n;
    } else if (r == "ormqr" || r == "unmqr" || r == "ormlq" || r == "unmlq") {
        factor_with(r.ends_with("lq") ? "gelqf" : "geqrf");
        char const* op = p == 'c' || p == 'z' ? "C" : "T";
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(char const*, char const*, int const*, int const*, int const*,
                                      T const*, int const*, T const*, T*, int const*, T*,
                                      int const*, int*, size_t, size_t)>(f)(
                L, op, &n, &nrhs, &n, a->data(), &ld, tau->data(), b->data(), &ld, work->data(),
                &lwork, &info, 1, 1);
        };
        k.output = [=] { return as_doubles(*b); };
        k.order = std::cbrt(double(n) * n * nrhs);
    } else if ((p == 'd' && r == "sgesv") || (p == 'z' && r == "cgesv")) {  // dsgesv, zcgesv
        // A diagonally dominant A: single precision converges, as the routine is meant for.
        for (int j = 0; j < n; ++j) (*a0)[j + size_t(j) * n] += T(2 * n);
        auto x = std::make_shared<std::vector<T>>(size_t(n) * nrhs);
        auto swork = std::make_shared<std::vector<std::complex<float>>>(size_t(n) * (n + nrhs) + 1);
        auto rwork = std::make_shared<std::vector<double>>(size_t(std::max(1, n)));
        auto iter = std::make_shared<int>(0);
        if (p == 'd')
            k.call = [=](void* f) mutable {
                reinterpret_cast<void (*)(int const*, int const*, T*, int const*, int*, T const*,
                                          int const*, T*, int const*, T*, void*, int*, int*)>(f)(
                    &n, &nrhs, a->data(), &ld, ipiv->data(), b->data(), &ld, x->data(), &ld,
                    work->data(), swork->data(), iter.get(), &info);
            };
        else
            k.call = [=](void* f) mutable {
                reinterpret_cast<void (*)(int const*, int const*, T*, int const*, int*, T const*,
                                          int const*, T*, int const*, T*, void*, double*, int*,
                                          int*)>(f)(
                    &n, &nrhs, a->data(), &ld, ipiv->data(), b->data(), &ld, x->data(), &ld,
                    work->data(), swork->data(), rwork->data(), iter.get(), &info);
            };
        k.output = [=] { return as_doubles(*x); };
        k.order = n;
    } else if (r == "gels") {
        char const* N = "N";
        k.call = [=](void* f) mutable {
            reinterpret_cast<void (*)(char const*, int const*, int const*, int const*, T*,
                                      int const*, T*, int const*, T*, int const*, int*, size_t)>(f)(
                N, &n, &n, &nrhs, a->data(), &ld, b->data(), &ld, work->data(), &lwork, &info, 1);
        };
        k.output = [=] { return as_doubles(*b); };
        k.order = n;
    } else if (r == "gemm" || r == "symm") {
        const T one(1);
        char const* N = "N";
        k.prepare = [=] { *c = *a0; };
        if (r == "gemm")
            k.call = [=](void* f) {
                reinterpret_cast<void (*)(char const*, char const*, int const*, int const*,
                                          int const*, T const*, T const*, int const*, T const*,
                                          int const*, T const*, T*, int const*, size_t, size_t)>(f)(
                    N, N, &n, &n, &n, &one, a0->data(), &ld, a0->data(), &ld, &one, c->data(), &ld,
                    1, 1);
            };
        else
            k.call = [=](void* f) {
                reinterpret_cast<void (*)(char const*, char const*, int const*, int const*,
                                          T const*, T const*, int const*, T const*, int const*,
                                          T const*, T*, int const*, size_t, size_t)>(f)(
                    L, L, &n, &n, &one, a0->data(), &ld, a0->data(), &ld, &one, c->data(), &ld, 1,
                    1);
            };
        k.output = [=] { return as_doubles(*c); };
        k.order = n;
    } else if (r == "syrk") {
        const T one(1);
        char const* N = "N";
        k.prepare = [=] { *c = *a0; };
        k.call = [=](void* f) {
            reinterpret_cast<void (*)(char const*, char const*, int const*, int const*, T const*,
                                      T const*, int const*, T const*, T*, int const*, size_t,
                                      size_t)>(f)(L, N, &n, &n, &one, a0->data(), &ld, &one,
                                                  c->data(), &ld, 1, 1);
        };
        k.output = [=] { return as_doubles(*c); };
        k.order = n;
    } else if (r == "trsm" || r == "trmm") {
        const T one(1);
        char const* N = "N";
        k.prepare = [=] { *c = *a0; };
        k.call = [=](void* f) {
            reinterpret_cast<void (*)(char const*, char const*, char const*, char const*,
                                      int const*, int const*, T const*, T const*, int const*, T*,
                                      int const*, size_t, size_t, size_t, size_t)>(f)(
                L, L, N, N, &n, &n, &one, a0->data(), &ld, c->data(), &ld, 1, 1, 1, 1);
        };
        k.output = [=] { return as_doubles(*c); };
        k.order = n;
    } else {
        throw InvalidArgument(
            "tessera-bench dropin: --routine: '" + std::string(1, p) + r +
            "' is not one of potrf potrs posv potri getrf getrs gesv getri geqrf orgqr ormqr "
            "gelqf orglq ormlq gels gemm symm syrk trsm trmm (with s, d, c or z before it; "
            "un for or with c and z), dsgesv or zcgesv");
    }
    if (!k.prepare) k.prepare = fresh;
    return k;
}

double relative_difference(std::vector<double> const& x, std::vector<double> const& y)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        d += (x[i] - y[i]) * (x[i] - y[i]);
        s += y[i] * y[i];
    }
    return s > 0 ? std::sqrt(d / s) : std::sqrt(d);
}

int run_dropin(Options const& o, Report& report)
{
    const std::string min_n = o.text("min-n", "0");
    if (min_n == "table")
        unsetenv("TESSERA_LAPACK_MIN_N");
    else
        setenv("TESSERA_LAPACK_MIN_N", min_n.c_str(), 1);
    const std::string path = o.text("library", TESSERA_DROPIN_LIBRARY);
    void* dropin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dropin)
        throw InvalidArgument("tessera-bench dropin: --library " + path +
                              " cannot be opened: " + dlerror());
    void* openblas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!openblas)
        throw InvalidArgument(std::string("tessera-bench dropin: libopenblas.so.0: ") + dlerror());
    auto symbol = [](void* lib, std::string const& name) {
        void* f = dlsym(lib, (name + "_").c_str());
        if (!f) throw InvalidArgument("tessera-bench dropin: no symbol " + name + "_");
        return f;
    };
    const int reps = int(o.integer("reps", 3));
    for (std::string const& routine : o.list("routine", {"dpotrf", "dgetrf", "dgeqrf", "dgemm"})) {
        if (routine.size() < 4 || std::string("sdcz").find(routine[0]) == std::string::npos)
            throw InvalidArgument("tessera-bench dropin: --routine '" + routine +
                                  "' must start with s, d, c or z");
        const char p = routine[0];
        const std::string rest = routine.substr(1);
        for (int64_t n : o.integers("n", {16, 64, 256, 1000, 2000})) {
            auto peer = [&](std::string const& name) { return symbol(openblas, name); };
            Case k = p == 's'   ? make_case<float>(rest, p, int(n), peer)
                     : p == 'd' ? make_case<double>(rest, p, int(n), peer)
                     : p == 'c' ? make_case<std::complex<float>>(rest, p, int(n), peer)
                                : make_case<std::complex<double>>(rest, p, int(n), peer);
            void* ours = symbol(dropin, routine);
            void* theirs = symbol(openblas, routine);
            std::vector<double> t_ours, t_theirs;
            // Small calls repeat inside one timing so that the clock's resolution does not
            // decide: as many calls as make 5 ms of OpenBLAS, at least one.
            k.prepare();
            const double once = seconds_of([&] { k.call(theirs); });
            const int inner = std::clamp(int(0.005 / std::max(once, 1e-9)), 1, 10000);
            // Repeated calls are timed as one loop, less the same loop of input copies alone:
            // a clock read per call would cost as much as a call at n = 1.
            auto time = [&](void* f) {
                if (inner == 1) {
                    k.prepare();
                    return seconds_of([&] { k.call(f); });
                }
                const double copies = seconds_of([&] {
                    for (int i = 0; i < inner; ++i) k.prepare();
                });
                const double both = seconds_of([&] {
                    for (int i = 0; i < inner; ++i) {
                        k.prepare();
                        k.call(f);
                    }
                });
                return std::max(both - copies, 0.0) / inner;
            };
            k.prepare();
            k.call(ours);                           // warm-up: starts the runtime, calibrates
            for (int rep = 0; rep < reps; ++rep) {  // interleaved: the noise hits both alike
                t_theirs.push_back(time(theirs));
                t_ours.push_back(time(ours));
            }
            k.prepare();
            k.call(theirs);
            const auto reference = k.output();
            k.prepare();
            k.call(ours);
            Result res;
            res.bench = "dropin";
            res.variant = routine;
            res.sizes = {{"n", double(n)}, {"order", std::round(k.order)}};
            res.seconds = median(t_ours);
            res.peer = "openblas";
            res.peer_seconds = median(t_theirs);
            res.ratio = res.peer_seconds / res.seconds;
            res.extra = {{"diff_vs_peer", relative_difference(k.output(), reference)},
                         {"calls_per_timing", double(inner)}};
            res.labels = {{"min_n", min_n}};
            report.add(res);
        }
    }
    return 0;
}

Register dropin_reg{
    {"dropin",
     "the drop-in LAPACK's symbols against OpenBLAS's, symbol for symbol: time, ratio",
     "tessera-bench dropin [--routine dpotrf,dgetrf,dgeqrf,dgemm] [--n 16,64,256,1000,2000] "
     "[--min-n 0|table|<TESSERA_LAPACK_MIN_N>] [--library libtessera_lapack.so] [--reps 3] "
     "[--json]",
     {"routine", "n", "min-n", "library", "reps"},
     [](Options const& o, Report& r) { return run_dropin(o, r); }}};

}  // namespace
}  // namespace tessera::bench
