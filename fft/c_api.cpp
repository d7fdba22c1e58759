// The FFT's C API (include/tessera/tessera.h): each C plan is a Plan<R> on the heap behind
// an opaque pointer; a plan creation that throws returns NULL with the message kept for
// tessera_last_error(), an execute that throws returns TESSERA_ERROR. Exceptions never cross
// into C.
#include <tessera/fft/fft2d.hpp>
#include <tessera/tessera.h>

#include "linalg/lapack/c_errors.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace tessera;
using capi::guarded;

struct tessera_fft_plan_s {
    fft::Plan<double> plan;
};
struct tessera_fftf_plan_s {
    fft::Plan<float> plan;
};

namespace {

/// A C plan made by `make` (a Plan<R>), or NULL with tessera_last_error()'s message.
template <class CPlan, class Make> CPlan* plan_or_null(Make&& make) noexcept
{
    CPlan* p = nullptr;
    const int status = guarded([&] { p = new CPlan{make()}; });
    return status == 0 ? p : nullptr;
}

/// The plan of a C handle, or InvalidArgument for NULL.
template <class CPlan> auto const& plan_of(CPlan* p, char const* fn)
{
    require(p != nullptr, std::string(fn) + ": argument 1 (plan) is NULL");
    return p->plan;
}

fft::Sign sign_of(int sign, char const* fn, int position = 5)
{
    require(sign == TESSERA_FFT_FORWARD || sign == TESSERA_FFT_BACKWARD,
            std::string(fn) + ": argument " + std::to_string(position) +
                " (sign) must be TESSERA_FFT_FORWARD (-1) or TESSERA_FFT_BACKWARD (+1), got " +
                std::to_string(sign));
    return fft::Sign(sign);
}

/// FFTW's int sizes of a plan_many as the C++ form takes them (rank checked there; n read only
/// for ranks 1 and 2).
std::vector<int64_t> sizes_of(int rank, int const* n)
{
    std::vector<int64_t> v;
    if (n && (rank == 1 || rank == 2)) v.assign(n, n + rank);
    return v;
}

using P = fft::Plan<double>;
using Pf = fft::Plan<float>;
using cz = std::complex<double>;
using cf = std::complex<float>;

}  // namespace

extern "C" {

tessera_fft_plan tessera_fft_plan_dft_2d(int n0, int n1, cz* in, cz* out, int sign, unsigned flags)
{
    return plan_or_null<tessera_fft_plan_s>([&] {
        return P::dft_2d(n0, n1, in, out, sign_of(sign, "tessera_fft_plan_dft_2d"), flags);
    });
}
tessera_fftf_plan tessera_fftf_plan_dft_2d(int n0, int n1, cf* in, cf* out, int sign,
                                           unsigned flags)
{
    return plan_or_null<tessera_fftf_plan_s>([&] {
        return Pf::dft_2d(n0, n1, in, out, sign_of(sign, "tessera_fftf_plan_dft_2d"), flags);
    });
}
tessera_fft_plan tessera_fft_plan_dft_1d(int n, cz* in, cz* out, int sign, unsigned flags)
{
    return plan_or_null<tessera_fft_plan_s>(
        [&] { return P::dft_1d(n, in, out, sign_of(sign, "tessera_fft_plan_dft_1d", 4), flags); });
}
tessera_fftf_plan tessera_fftf_plan_dft_1d(int n, cf* in, cf* out, int sign, unsigned flags)
{
    return plan_or_null<tessera_fftf_plan_s>([&] {
        return Pf::dft_1d(n, in, out, sign_of(sign, "tessera_fftf_plan_dft_1d", 4), flags);
    });
}
tessera_fft_plan tessera_fft_plan_many_dft(int rank, const int* n, int howmany, cz* in, int idist,
                                           cz* out, int odist, int sign, unsigned flags)
{
    return plan_or_null<tessera_fft_plan_s>([&] {
        const auto sizes = sizes_of(rank, n);
        return P::dft_many(rank, sizes.empty() ? nullptr : sizes.data(), howmany, in, idist, out,
                           odist, sign_of(sign, "tessera_fft_plan_many_dft", 8), flags);
    });
}
tessera_fftf_plan tessera_fftf_plan_many_dft(int rank, const int* n, int howmany, cf* in, int idist,
                                             cf* out, int odist, int sign, unsigned flags)
{
    return plan_or_null<tessera_fftf_plan_s>([&] {
        const auto sizes = sizes_of(rank, n);
        return Pf::dft_many(rank, sizes.empty() ? nullptr : sizes.data(), howmany, in, idist, out,
                            odist, sign_of(sign, "tessera_fftf_plan_many_dft", 8), flags);
    });
}
tessera_fft_plan tessera_fft_plan_dft_r2c_2d(int n0, int n1, double* in, cz* out, unsigned flags)
{
    return plan_or_null<tessera_fft_plan_s>([&] { return P::dft_r2c_2d(n0, n1, in, out, flags); });
}
tessera_fftf_plan tessera_fftf_plan_dft_r2c_2d(int n0, int n1, float* in, cf* out, unsigned flags)
{
    return plan_or_null<tessera_fftf_plan_s>(
        [&] { return Pf::dft_r2c_2d(n0, n1, in, out, flags); });
}
tessera_fft_plan tessera_fft_plan_dft_c2r_2d(int n0, int n1, cz* in, double* out, unsigned flags)
{
    return plan_or_null<tessera_fft_plan_s>([&] { return P::dft_c2r_2d(n0, n1, in, out, flags); });
}
tessera_fftf_plan tessera_fftf_plan_dft_c2r_2d(int n0, int n1, cf* in, float* out, unsigned flags)
{
    return plan_or_null<tessera_fftf_plan_s>(
        [&] { return Pf::dft_c2r_2d(n0, n1, in, out, flags); });
}

int tessera_fft_execute(tessera_fft_plan p)
{
    return guarded([&] { plan_of(p, "tessera_fft_execute").execute(); });
}
int tessera_fftf_execute(tessera_fftf_plan p)
{
    return guarded([&] { plan_of(p, "tessera_fftf_execute").execute(); });
}
int tessera_fft_execute_dft(tessera_fft_plan p, cz* in, cz* out)
{
    return guarded([&] { plan_of(p, "tessera_fft_execute_dft").execute_dft(in, out); });
}
int tessera_fftf_execute_dft(tessera_fftf_plan p, cf* in, cf* out)
{
    return guarded([&] { plan_of(p, "tessera_fftf_execute_dft").execute_dft(in, out); });
}
int tessera_fft_execute_dft_r2c(tessera_fft_plan p, double* in, cz* out)
{
    return guarded([&] { plan_of(p, "tessera_fft_execute_dft_r2c").execute_dft_r2c(in, out); });
}
int tessera_fftf_execute_dft_r2c(tessera_fftf_plan p, float* in, cf* out)
{
    return guarded([&] { plan_of(p, "tessera_fftf_execute_dft_r2c").execute_dft_r2c(in, out); });
}
int tessera_fft_execute_dft_c2r(tessera_fft_plan p, cz* in, double* out)
{
    return guarded([&] { plan_of(p, "tessera_fft_execute_dft_c2r").execute_dft_c2r(in, out); });
}
int tessera_fftf_execute_dft_c2r(tessera_fftf_plan p, cf* in, float* out)
{
    return guarded([&] { plan_of(p, "tessera_fftf_execute_dft_c2r").execute_dft_c2r(in, out); });
}

void tessera_fft_destroy_plan(tessera_fft_plan p)
{
    delete p;
}
void tessera_fftf_destroy_plan(tessera_fftf_plan p)
{
    delete p;
}

char* tessera_fft_export_wisdom_to_string(void)
{
    char* copy = nullptr;
    guarded([&] {
        const std::string w = fft::export_wisdom();
        copy = static_cast<char*>(std::malloc(w.size() + 1));
        if (!copy) throw std::bad_alloc();
        std::memcpy(copy, w.c_str(), w.size() + 1);
    });
    return copy;
}

int tessera_fft_import_wisdom_from_string(const char* wisdom)
{
    int ok = 0;
    guarded([&] {
        require(wisdom != nullptr,
                "tessera_fft_import_wisdom_from_string: argument 1 (wisdom) is NULL");
        ok = fft::import_wisdom(wisdom) ? 1 : 0;
    });
    return ok;
}

}  // extern "C"
