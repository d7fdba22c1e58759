// Sequence: waiting for the tasks of chained asynchronous calls.
#include <tessera/la/sequence.hpp>

#include "linalg/kernels/cpu/blas_lapack.hpp"

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
    if (first && !state_->error) state_->error = first;
    if (state_->error) std::rethrow_exception(state_->error);
    return info();
}

}  // namespace tessera::la
