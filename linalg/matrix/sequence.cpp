// Sequence: waiting for the tasks of chained asynchronous calls.
#include <tessera/la/sequence.hpp>

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <tessera/error.hpp>

#include <cstdint>

namespace tessera::inline la {

Sequence::Sequence(rt::Runtime& rt) : state_(std::make_unique<State>())
{
    state_->rt = &rt;
    state_->one_blas_thread = kernels::cpu::single_threaded_blas();  // every tile call has a sequence
}

Sequence::~Sequence()
{
    if (!state_) return;
    try {
        (void)wait();
    } catch (...) {  // reported only to wait(): a destructor must not throw
    }
}

int64_t Sequence::wait()
{
    // Every task is waited for, even after a failure: nothing may still run on the data when
    // the caller goes on.
    std::exception_ptr first;
    for (rt::TaskRef const& t : state_->tasks) {
        try {
            t.wait();
        } catch (...) {
            if (!first) first = std::current_exception();
        }
    }
    state_->tasks.clear();
    state_->kept.clear();
    state_->registrations.clear();
    if (first && !state_->error) state_->error = first;
    if (state_->error) std::rethrow_exception(state_->error);
    return info();
}

std::shared_ptr<void> Sequence::registration_of(void const* begin, void const* end, std::string const& shape,
                                                bool writes, std::string const& what)
{
    // Every other registration that overlaps is checked, also those after a match: a write
    // through the match would not be ordered with their reads.
    const auto b = reinterpret_cast<std::uintptr_t>(begin), e = reinterpret_cast<std::uintptr_t>(end);
    Registration* match = nullptr;
    for (Registration& r : state_->registrations) {
        if (r.begin == b && r.end == e && r.shape == shape) {
            match = &r;
            continue;
        }
        require(e <= r.begin || r.end <= b || !(writes || r.writes),
                what + " overlaps an array converted earlier in the sequence as " + r.shape + ", not " + shape +
                    ", and one of the two writes it: wait for the sequence first");
    }
    if (!match) return nullptr;
    match->writes = match->writes || writes;
    return match->object;
}

void Sequence::keep_registration(void const* begin, void const* end, std::string shape, bool writes,
                                 std::shared_ptr<void> registration)
{
    state_->registrations.push_back({reinterpret_cast<std::uintptr_t>(begin), reinterpret_cast<std::uintptr_t>(end),
                                     std::move(shape), writes, std::move(registration)});
}

}  // namespace tessera::la
