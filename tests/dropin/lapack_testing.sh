#!/usr/bin/env bash
# Reference LAPACK's own test programs (Debian's liblapack-test) through the drop-in:
#   tests/dropin/lapack_testing.sh <libtessera_lapack.so> <s|d|c|z|ds|zc> [workdir]
# runs xlintst<p> with LD_PRELOAD of the drop-in and TESSERA_LAPACK_MIN_N=0 (Tessera, not
# the next library, runs every call the program makes), on the paths Tessera implements:
# GE, PO, QR, LQ, LS (ds, zc: the mixed-precision GE driver), or those of LAPACK_TESTING_PATHS
# (e.g. "GE PO"); with DROPIN_AS=liblapack, the
# drop-in stands in for liblapack.so.3 instead (run_with_dropin.sh). Passes when every test passes
# its threshold, every error exit calls xerbla as LAPACK's routine would, and Tessera served
# calls of each routine it implements on those paths. Exit 77 (skipped) without liblapack-test.
set -euo pipefail

lib=$(realpath "$1")
p=$2
work=${3:-$(mktemp -d)}
lapack=/usr/lib/x86_64-linux-gnu/lapack
program=$lapack/xlintst$p
if [[ ! -x $program ]]; then
    echo "SKIP: $program is missing (install Debian's liblapack-test: scripts/setup.sh does)"
    exit 77
fi
mkdir -p "$work"
input=$work/${p}test.in
output=$work/xlintst$p.out

# The input file restricted to Tessera's paths: its first 17 lines (sizes, thresholds) for
# the linear-equation programs, then the path lines; the mixed-precision ones drop DPO/ZPO
# (dsposv, not in Tessera).
paths=${LAPACK_TESTING_PATHS:-GE PO QR LQ LS}
case $p in
    ds|zc) grep -v '^[DZ]PO' "$lapack/${p}test.in" > "$input" ;;
    *) awk -v paths="$paths" 'BEGIN { n = split(paths, list, " "); for (i = 1; i <= n; ++i) want[list[i]] = 1 }
           NR <= 17 || ((substr($1, 2)) in want)' "$lapack/${p}test.in" > "$input" ;;
esac

# Each routine of the paths must have been served by Tessera (not only forwarded):
# run_with_dropin.sh checks the counters. Q is "or" in real precisions, "un" in complex ones.
case $p in
    s|d) q=or ;;
    *) q=un ;;
esac
routines=""
for path in $paths; do
    case $path in
        GE) routines+=" getrf getrs gesv getri" ;;
        PO) routines+=" potrf potrs posv potri" ;;
        QR) routines+=" geqrf ${q}gqr ${q}mqr" ;;
        LQ) routines+=" gelqf ${q}glq ${q}mlq" ;;
        LS) routines+=" gels" ;;
        *) echo "FAIL: LAPACK_TESTING_PATHS: unknown path '$path' (GE, PO, QR, LQ, LS)"; exit 1 ;;
    esac
done
case $p in
    ds) routines="dsgesv" ;;
    zc) routines="zcgesv" ;;
esac
symbols=""
for r in $routines; do
    [[ $p == ds || $p == zc ]] && symbols+=" ${r}_" || symbols+=" $p${r}_"
done

status=0
bash "$(dirname "$0")/run_with_dropin.sh" "$lib" "$symbols" "$program" < "$input" > "$output" || status=1
grep -E '^(tessera_lapack|PASS|FAIL)' "$output" || true
if grep -qiE 'failed|illegal|not called|XERBLA was' "$output"; then
    echo "FAIL: xlintst$p reports failures:"
    grep -iE -B2 'failed|illegal|not called|XERBLA was' "$output" | head -60
    status=1
fi
passed=$(grep -c 'passed' "$output" || true)
[[ $passed -gt 0 ]] || { echo "FAIL: xlintst$p ran no test (output in $output)"; status=1; }
[[ $status -eq 0 ]] && echo "PASS: xlintst$p: $passed paths passed, Tessera served $(echo $routines | wc -w) routines"
exit $status
