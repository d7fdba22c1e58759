// MPI's text for an error code, for the messages of the MPI layer. Internal to libtessera_mpi.
#pragma once

#include <mpi.h>

#include <string>

namespace tessera::rt::mpi::detail {

inline std::string mpi_error_text(int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        return "MPI error " + std::to_string(code);
    return std::string(text, std::size_t(length));
}

}  // namespace tessera::rt::mpi::detail
