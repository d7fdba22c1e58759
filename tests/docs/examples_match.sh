#!/usr/bin/env bash
# Checks that every code block of the documentation marked with a line
#   <!-- example: examples/NAME -->
# right above it is that file, verbatim, so that what README.md and docs/guide/ show is what
# the build compiles and the tests run. Fails naming the block that differs, or when README.md
# shows none.
#   tests/docs/examples_match.sh <source dir>
set -euo pipefail
cd "$1"
failed=0 checked=0
for doc in README.md docs/guide/*.md; do
    # awk prints, for each marked block: "<line of the marker> <file>", then the block's lines
    while IFS= read -r marker; do
        line=${marker%% *} file=${marker#* }
        checked=$((checked + 1))
        if [[ ! -f $file ]]; then
            echo "$doc:$line: the example file $file does not exist"
            failed=1
            continue
        fi
        if ! diff -u "$file" <(awk -v start="$line" 'NR == start + 1 { next } NR > start + 1 && /^```/ { exit } NR > start + 1' "$doc") >/tmp/examples_match.$$ 2>&1; then
            echo "$doc:$line: the block differs from $file:"
            cat /tmp/examples_match.$$
            failed=1
        fi
    done < <(grep -n '^<!-- example: .* -->$' "$doc" | sed -E 's/^([0-9]+):<!-- example: (.*) -->$/\1 \2/')
done
rm -f /tmp/examples_match.$$
if ! grep -q '^<!-- example: ' README.md; then
    echo "README.md shows no example"
    failed=1
fi
echo "examples_match: $checked blocks checked"
exit $failed
