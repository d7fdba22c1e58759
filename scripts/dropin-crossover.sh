#!/usr/bin/env bash
# Measures the drop-in's crossovers (linalg/dropin/crossover.cpp): for each routine, Tessera (every
# call sent to it, TESSERA_LAPACK_MIN_N=0) against OpenBLAS's same symbol at growing orders,
# and prints the smallest order from which Tessera was at least as fast at every order
# measured above it ("never" when it was not at the largest).
#   scripts/dropin-crossover.sh [build-dir] [precisions] [orders]
#   scripts/dropin-crossover.sh build "d z" "32 64 128 256 512 1024 2048"
#   ROUTINES="orglq ormlq" scripts/dropin-crossover.sh build "s d"   (some routines only)
# Run it on an idle machine: it takes minutes per routine and precision. The JSON lines go to
# <build>/dropin-crossover.json.
#   scripts/dropin-crossover.sh --summary FILE.json   (only the crossovers of earlier runs)
set -euo pipefail
if [[ ${1:-} == --summary ]]; then
    out=$2
else
    build=${1:-build}
    precisions=${2:-"s d c z"}
    orders=${3:-"32 64 128 256 512 1024 2048"}
    bench=$build/bin/tessera-bench
    out=$build/dropin-crossover.json
    : > "$out"
    export TESSERA_NCUDA=${TESSERA_NCUDA:-0}
    for p in $precisions; do
        case $p in
            s|d) q=or ;;
            *) q=un ;;
        esac
        routines="potrf potrs posv potri getrf getrs gesv getri geqrf ${q}gqr ${q}mqr gelqf ${q}glq ${q}mlq gels"
        routines+=" gemm symm syrk trsm trmm"
        [[ $p == d ]] && routines+=" sgesv"  # dsgesv
        [[ $p == z ]] && routines+=" cgesv"  # zcgesv
        for r in ${ROUTINES:-$routines}; do
            "$bench" dropin --routine "$p$r" --n "$(echo $orders | tr ' ' ,)" --reps "${REPS:-3}" --json |
                tee -a "$out" | grep -o '"order":[0-9.e+]*\|"ratio":[0-9.e+-]*' | paste - - | tr '\n' ' ' |
                sed "s/^/$p$r /; s/\$/\\n/"
        done
    done
fi

# The crossover of each routine: the smallest order measured from which every ratio is 0.95
# or more (the noise of this machine; the drop-in must stay within 10% of OpenBLAS), where
# the ratio is 1 or more, with two orders measured at least: "never" otherwise.
echo
echo "routine   crossover order"
awk -F'[:,"]+' '
    { for (i = 1; i < NF; i++) { if ($i == "variant") v = $(i+1); if ($i == "order") o = $(i+1); if ($i == "ratio") r = $(i+1) }
      n[v]++; ord[v, n[v]] = o; rat[v, n[v]] = r; if (!(v in seen)) { seen[v] = 1; names[++k] = v } }
    END { for (j = 1; j <= k; j++) { v = names[j]; x = "never"
            run = 0
            for (i = n[v]; i >= 1 && rat[v, i] + 0 >= 0.95; i--) {
                run++
                if (run >= 2 && rat[v, i] + 0 >= 1) x = ord[v, i]
            }
            printf "%-9s %s\n", v, x } }' "$out"
