! A Fortran program as users write them, compiled with gfortran against -llapack and run with
! the drop-in preloaded (tests/dropin/run_with_dropin.sh): DPOSV, DGESV, DGELS and ZPOTRF,
! each checked by its own residual computed with loops. Stops with status 1 on a failure.
program fortran_lapack
    implicit none
    integer, parameter :: n = 200, m = 300, nrhs = 2
    double precision :: a(n, n), a0(n, n), b(n, nrhs), b0(n, nrhs), r(n, nrhs)
    double precision :: g(m, n), g0(m, n), c(m, nrhs), c0(m, nrhs), work(64 * (m + n))
    complex(kind=8) :: h(n, n), h0(n, n), l(n, n)
    integer :: ipiv(n), info, i, j, failures
    double precision :: eps, resid, anorm, xnorm

    eps = epsilon(1d0)
    failures = 0
    call random_seed()
    call random_number(g0)
    call random_number(b0)
    a0 = matmul(transpose(g0(1:n, :)), g0(1:n, :))
    do i = 1, n
        a0(i, i) = a0(i, i) + n
    end do

    ! DPOSV: A X = B, A symmetric positive definite
    a = a0
    b = b0
    call dposv('L', n, nrhs, a, n, b, n, info)
    r = b0 - matmul(a0, b)
    resid = maxval(sum(abs(r), 1)) / (maxval(sum(abs(a0), 1)) * maxval(sum(abs(b), 1)) * n * eps)
    call report('DPOSV', info, resid)

    ! DGESV: A X = B, A general
    a = g0(1:n, :)
    b = b0
    call dgesv(n, nrhs, a, n, ipiv, b, n, info)
    r = b0 - matmul(g0(1:n, :), b)
    resid = maxval(sum(abs(r), 1)) / (maxval(sum(abs(g0(1:n, :)), 1)) * maxval(sum(abs(b), 1)) * n * eps)
    call report('DGESV', info, resid)

    ! DGELS: least squares; the residual is orthogonal to A's columns
    call random_number(c0)
    g = g0
    c = c0
    call dgels('N', m, n, nrhs, g, m, c, m, work, size(work), info)
    r = matmul(transpose(g0), c0 - matmul(g0, c(1:n, :)))
    anorm = maxval(sum(abs(g0), 1))
    xnorm = maxval(sum(abs(c(1:n, :)), 1))
    resid = maxval(sum(abs(r), 1)) / (anorm * (maxval(sum(abs(c0), 1)) + anorm * xnorm) * m * eps)
    call report('DGELS', info, resid)

    ! ZPOTRF: A = L L^H, A Hermitian positive definite
    h0 = cmplx(a0, transpose(g0(1:n, :)) - g0(1:n, :), kind=8)
    h = h0
    call zpotrf('L', n, h, n, info)
    l = (0d0, 0d0)
    do j = 1, n
        do i = j, n
            l(i, j) = h(i, j)
        end do
    end do
    resid = maxval(sum(abs(matmul(l, conjg(transpose(l))) - h0), 1)) / (maxval(sum(abs(h0), 1)) * n * eps)
    call report('ZPOTRF', info, resid)

    if (failures > 0) stop 1
    print '(a)', 'fortran_lapack: all residuals below 30'

contains
    subroutine report(name, info, resid)
        character(*), intent(in) :: name
        integer, intent(in) :: info
        double precision, intent(in) :: resid
        if (info /= 0 .or. .not. (resid <= 30d0)) then
            failures = failures + 1
            print '(a, a, a, i0, a, es10.3)', 'FAIL ', name, ': info ', info, ', residual ', resid
        else
            print '(a, a, a, es10.3)', 'ok   ', name, ': residual ', resid
        end if
    end subroutine report
end program fortran_lapack
