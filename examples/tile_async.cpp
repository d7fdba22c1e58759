// Chain a factorization and a solve on tile matrices without waiting in between.
#include <tessera/tessera.hpp>

#include <cstdio>

int main()
{
    using tessera::Uplo;
    auto& rt = tessera::runtime();  // the library's runtime, every core
    int64_t n = 4000, nrhs = 10, nb = 400;
    tessera::TileMatrix<double> A{rt, n, n, nb}, B{rt, n, nrhs, nb};
    tessera::Sequence s{rt};
    tessera::generate_hpd_async(A, /*kappa=*/1e6, /*seed=*/1, s);  // tasks too
    tessera::generate_random_async(B, /*seed=*/2, s);
    tessera::potrf_async(Uplo::lower, A, s);     // returns at once
    tessera::potrs_async(Uplo::lower, A, B, s);  // its tasks wait for potrf's tiles only
    int64_t info = s.wait();                     // LAPACK's info of the first failure
    std::printf("dpotrf + dpotrs, %lld x %lld tiles: info %lld\n", (long long)A.mt(),
                (long long)A.nt(), (long long)info);
    return info != 0;
}
