#!/usr/bin/env bash
# Runs a program with the drop-in preloaded and every call sent to Tessera:
#   tests/dropin/run_with_dropin.sh <libtessera_lapack.so> "<symbols>" <program> [args...]
# Passes when the program passes (it checks its own results) and Tessera served at least one
# call of each of <symbols> (TESSERA_LAPACK_VERBOSE's counters).
# DROPIN_AS=liblapack: instead of LD_PRELOAD, the drop-in stands in for liblapack.so.3 and
# libblas.so.3 (a directory of links on LD_LIBRARY_PATH), as Debian's alternatives would
# install it: what it does not define comes from the OpenBLAS it loads.
set -euo pipefail
lib=$(realpath "$1")
symbols=$2
shift 2
counts=$(mktemp)
links=$(mktemp -d)
trap 'rm -rf "$counts" "$links"' EXIT
if [[ ${DROPIN_AS:-} == liblapack ]]; then
    ln -s "$lib" "$links/liblapack.so.3"
    ln -s "$lib" "$links/libblas.so.3"
    load=(LD_LIBRARY_PATH="$links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
else
    load=(LD_PRELOAD="$lib")
fi
env "${load[@]}" TESSERA_LAPACK_MIN_N=0 TESSERA_LAPACK_VERBOSE=1 TESSERA_NCUDA=0 "$@" 2> "$counts"
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
