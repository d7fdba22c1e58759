// The message of the error an epoch's Context::wait_all throws, for the MPI tests' checks that
// a failure reaches every rank: "no error on rank r" when it throws none.
#pragma once

#include <tessera/rt/mpi.hpp>

#include <string>

namespace tessera::test {

/// wait_all's error of type E, its text; E's of another type propagate.
template <class E> std::string epoch_failure(rt::mpi::Context& mpi)
{
    try {
        mpi.wait_all();
    } catch (E const& e) {
        return e.what();
    }
    return "no error on rank " + std::to_string(mpi.rank());
}

}  // namespace tessera::test
