// Jacobi 2D on the runtime (jacobi2d.hpp), checked against the same sweeps computed
// sequentially: the runtime's result must be the sequential one exactly, whatever the policy
// and the devices (TESSERA_SCHED, TESSERA_NEMU), as each point is computed by the same
// arithmetic in the same order.
//   example_jacobi2d [n] [tiles per side] [sweeps]
#include "jacobi2d.hpp"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    int64_t n = argc > 1 ? std::atoll(argv[1]) : 256, nt = argc > 2 ? std::atoll(argv[2]) : 4;
    int sweeps = argc > 3 ? std::atoi(argv[3]) : 20;
    tessera::rt::Runtime r;
    tessera::examples::Jacobi2d jacobi{r, n, nt};
    jacobi.submit(sweeps);
    std::vector<double> grid = jacobi.grid(),
                        expected = tessera::examples::jacobi2d_reference(n, sweeps);
    int64_t wrong = 0;
    for (std::size_t k = 0; k < grid.size(); ++k) wrong += grid[k] != expected[k];
    std::printf("jacobi2d: %lld x %lld grid, %lld x %lld tiles, %d sweeps: %lld points differ\n",
                (long long)n, (long long)n, (long long)nt, (long long)nt, sweeps, (long long)wrong);
    return wrong != 0;
}
