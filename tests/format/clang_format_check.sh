#!/usr/bin/env bash
# Checks that every C++, C and CUDA source of the repository is formatted as .clang-format
# says (STYLE.md: the house format, checked in CI). Lists the files that differ and the first
# lines of their diff; `clang-format -i FILE` (or `git clang-format` on a change) fixes them.
#   tests/format/clang_format_check.sh <clang-format> <source dir>
set -euo pipefail
clang_format=$1
cd "$2"
if [[ -d .git ]] || git rev-parse --git-dir >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' '*.cu' '*.cuh')
else
    mapfile -t files < <(find . -path ./build\* -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' \
        -o -name '*.h' -o -name '*.c' -o -name '*.cu' -o -name '*.cuh' \) -print)
fi
differ=0
for f in "${files[@]}"; do
    # the output compared, not --dry-run -Werror: clang-format 14 reports a no-op replacement
    # on the closing comment of every `namespace a::inline b`
    if ! "$clang_format" "$f" | cmp -s - "$f"; then
        echo "not formatted: $f"
        diff -u "$f" <("$clang_format" "$f") | sed -n '3,12p'
        differ=$((differ + 1))
    fi
done
echo "clang_format_check: $differ of ${#files[@]} files differ from .clang-format"
((differ == 0))
