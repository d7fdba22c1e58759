// The message of the InvalidArgument a call throws, for the MPI tests' checks that bad
// arguments are named: "no InvalidArgument" when it throws none.
#pragma once

#include <tessera/error.hpp>

#include <string>

namespace tessera::test {

template <class F> std::string refusal_of(F&& call)
{
    try {
        call();
    } catch (InvalidArgument const& e) {
        return e.what();
    }
    return "no InvalidArgument";
}

}  // namespace tessera::test
