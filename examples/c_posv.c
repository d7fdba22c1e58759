#include <stdio.h>
#include <tessera/tessera.h>

int main(void)
{
    double A[4] = {4, 2, 2, 3}, B[2] = {2, 1};       /* column-major, as in LAPACK */
    int info = tessera_dposv('L', 2, 1, A, 2, B, 2); /* B = A^{-1} B */
    if (info != 0) fprintf(stderr, "dposv: info %d: %s\n", info, tessera_last_error());
    tessera_finalize();
    return info != 0;
}
