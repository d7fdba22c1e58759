#!/usr/bin/env bash
# One step of the command-line tools' test (tests/tools/CMakeLists.txt runs each as a test):
#   calibrate  tessera-calibrate --quick fills a fresh model directory, with the bus model of
#              an emulated device; each tile_dpotrf size has 10 samples or more (calibrated)
#   list       tessera-perfmodel list names the symbols, with sizes and samples per
#              architecture, from TESSERA_PERFMODEL_DIR and from --dir
#   show       show prints a table per architecture and the regressions
#   plot       plot --svg writes well-formed SVG (xmllint, else Python's XML parser), also for
#              a symbol full of markup characters
#   errors     an unknown symbol or directory: exit 1 and a message naming it; usage: exit 2
#   topology   tessera-topology and tessera-bus print the workers, memory nodes and links
# The environment gives TOOLS (the folder of the tools) and TESSERA_PERFMODEL_DIR (a scratch
# folder of the build tree, which the calibrate step empties first).
#   check_tools.sh <step>
set -euo pipefail
step=$1
: "${TOOLS:?}" "${TESSERA_PERFMODEL_DIR:?}"
calibrate=$TOOLS/tessera-calibrate perfmodel=$TOOLS/tessera-perfmodel
models=$TESSERA_PERFMODEL_DIR/$(hostname)
work=$TESSERA_PERFMODEL_DIR.work/$step
rm -rf "$work" && mkdir -p "$work"

fail() { echo "FAIL ($step): $*" >&2; exit 1; }
# expect STATUS PATTERN COMMAND...: COMMAND exits with STATUS and its output matches PATTERN
expect()
{
    local want=$1 pattern=$2 status=0
    shift 2
    "$@" >"$work/out" 2>&1 || status=$?
    cat "$work/out"
    ((status == want)) || fail "$* exited with $status, not $want"
    grep -Eq -- "$pattern" "$work/out" || fail "$*: no line matches '$pattern'"
}
well_formed()
{
    if command -v xmllint >/dev/null; then
        xmllint --noout "$1" || fail "$1 is not well-formed XML"
    else
        python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1" ||
            fail "$1 is not well-formed XML"
    fi
}

case $step in
calibrate)
    rm -rf "$TESSERA_PERFMODEL_DIR"
    # one emulated device, so that there is a link to measure; stdout is not a terminal: one
    # line per step
    expect 0 '^\[100%\] gemm nb=256' env TESSERA_NEMU=1 "$calibrate" --quick
    grep -Eq '^\[ *[0-9]+%\] potrf nb=128: [0-9]+ runs, ' "$work/out" ||
        fail "no line for the step potrf nb=128"
    grep -Eq '^  0 -> 1: +[0-9.]+ us +[0-9.]+ GB/s' "$work/out" || fail "no bus link printed"
    compgen -G "$models/bus-*.model" >/dev/null || fail "no bus model saved in $models"
    # tile_dpotrf: both sizes, each calibrated (10 samples or more on one architecture)
    "$perfmodel" show tile_dpotrf >"$work/potrf"
    awk 'length($1) == 16 && $1 ~ /^[0-9a-f]+$/ && $4 > most[$1] { most[$1] = $4 }
         END { for (f in most) { sizes++; if (most[f] < 10) low++ }; exit !(sizes == 2 && !low) }' \
        "$work/potrf" || fail "tile_dpotrf: not 2 sizes of 10 samples or more: $(cat "$work/potrf")"
    ;;
list)
    expect 0 '^tile_dpotrf +cpu: 2 sizes, [0-9]+ samples' "$perfmodel" list
    grep -Eq '^tile_dgemm ' "$work/out" || fail "tile_dgemm not listed"
    # --dir with the directory itself, and with the TESSERA_PERFMODEL_DIR above it
    expect 0 '^tile_dgemm ' "$perfmodel" list --dir "$models"
    expect 0 '^tile_dgemm ' \
        env -u TESSERA_PERFMODEL_DIR "$perfmodel" --dir "$TESSERA_PERFMODEL_DIR" list
    ;;
show)
    symbol=$("$perfmodel" list | awk '/^tile_dgemm /{ print $1 }')
    [[ $symbol == tile_dgemm ]] || fail "tile_dgemm not listed"
    expect 0 '^architecture cpu: 2 sizes, [0-9]+ samples' "$perfmodel" show "$symbol"
    header='^  footprint +size \(B\) +nb +samples +rejected +mean +stddev +GFlop/s'
    grep -Eq "$header" "$work/out" || fail "no table header"
    # a row: footprint, 3 x 128 x 128 x 8 bytes, nb, samples, rejected, mean, stddev, rate
    secs='[0-9.]+ [num]?s'
    grep -Eq "^  [0-9a-f]+ +393216 +128 +[0-9]+ +[0-9]+ +$secs +$secs +[0-9.]+\$" "$work/out" ||
        fail "no row for nb = 128"
    grep -Eq '^  regression t = a s\^b +\(2 sizes\): a = [-0-9.e+]+, b = [0-9.]+' "$work/out" ||
        fail "no regression"
    ;;
plot)
    expect 0 'wrote .*dgemm.svg' "$perfmodel" plot tile_dgemm --svg "$work/dgemm.svg"
    well_formed "$work/dgemm.svg"
    for element in '<svg ' '<polyline ' '<circle ' '<title>tile_dgemm' '>1 MB<' 'fit t = a s^b'; do
        grep -qF -- "$element" "$work/dgemm.svg" || fail "dgemm.svg has no $element"
    done
    grep -Eq '>10{0,2} (ns|us|ms|s)<' "$work/dgemm.svg" || fail "dgemm.svg has no time label"
    # a symbol of markup characters (the runtime writes them %XX in the file's name), and an
    # architecture name that is not UTF-8
    {
        printf 'tessera-perfmodel 1\nsymbol a%%3Cb%%26c%%22d\n'
        printf 'entry cpu\xff 1 1000 10 0.001 1e-9 0\nentry cpu\xff 2 8000 10 0.004 1e-9 0\n'
    } >"$work/a%3Cb%26c%22d.model"
    expect 0 'wrote' "$perfmodel" --dir "$work" plot 'a<b&c"d' --svg "$work/markup.svg"
    well_formed "$work/markup.svg"
    grep -qF '<title>a&lt;b&amp;c&quot;d' "$work/markup.svg" || fail "the symbol is not escaped"
    ;;
errors)
    expect 1 "no performance model 'nosuch' in " "$perfmodel" show nosuch
    expect 1 "no performance-model directory $work/absent" "$perfmodel" --dir "$work/absent" list
    expect 2 'expected a command' "$perfmodel"
    expect 2 "unknown command 'shwo'" "$perfmodel" shwo tile_dgemm
    expect 2 'plot: expected --svg' "$perfmodel" plot tile_dgemm
    expect 2 'unknown option --bogus' "$perfmodel" list --bogus
    expect 0 'usage: tessera-perfmodel' "$perfmodel" --help
    expect 2 "--nb: expected tile sizes" "$calibrate" --nb 64,,128
    expect 2 "--nb: expected tile sizes" "$calibrate" --nb 0
    expect 0 'usage: tessera-calibrate' "$calibrate" --help
    ;;
topology)
    expect 0 '^workers: [0-9]+' env TESSERA_NEMU=1 "$TOOLS/tessera-topology"
    for pattern in '^Machine topology' '^  cores: +[0-9]+' '^memory nodes: 2' '^   1  emulated ' \
        '^  0 -> 1: +[0-9.]+ us +[0-9.]+ GB/s' '^  1 -> 0: '; do
        grep -Eq -- "$pattern" "$work/out" || fail "tessera-topology: no line matches '$pattern'"
    done
    expect 0 '^  none: the host is the only memory node' "$TOOLS/tessera-topology"
    expect 0 '^Machine topology' "$TOOLS/tessera-topology" --hwloc
    ! grep -q '^workers:' "$work/out" || fail "--hwloc started the runtime"
    expect 0 '^  0 -> 1: ' env TESSERA_NEMU=1 "$TOOLS/tessera-bus"
    grep -Eq '^memory nodes: 2' "$work/out" || fail "tessera-bus: no memory nodes"
    ;;
*)
    fail "unknown step"
    ;;
esac
echo "ok: $step"
