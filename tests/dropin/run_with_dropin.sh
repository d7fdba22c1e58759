#!/usr/bin/env bash
# Runs a program with the drop-in preloaded and every call sent to Tessera:
#   tests/dropin/run_with_dropin.sh <libtessera_lapack.so> "<symbols>" <program> [args...]
# Passes when the program passes (it checks its own results) and Tessera served at least one
# call of each of <symbols> (TESSERA_LAPACK_VERBOSE's counters).
set -euo pipefail
lib=$(realpath "$1")
symbols=$2
shift 2
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
LD_PRELOAD=$lib TESSERA_LAPACK_MIN_N=0 TESSERA_LAPACK_VERBOSE=1 TESSERA_NCUDA=0 "$@" 2> "$counts"
cat "$counts"
status=0
for s in $symbols; do
    served=$(awk -v s="$s" '$2 == s { print $3 }' "$counts")
    if [[ -z $served || $served -eq 0 ]]; then
        echo "FAIL: Tessera served no call of $s"
        status=1
    fi
done
[[ $status -eq 0 ]] && echo "PASS: Tessera served $symbols"
exit $status
