// main() of the MPI tests (tests/mpi/): MPI is initialized once for the whole program, so that
// every test's Context finds it initialized and leaves it so (MPI cannot start twice in one
// process). The exit status is the worst of the ranks'.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    ::testing::InitGoogleTest(&argc, argv);
    const int status = RUN_ALL_TESTS();
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
