#!/usr/bin/env bash
# Mutation testing of the packages that hold money, tenancy and scoring
# rules, with the project's mutation tester (tools/mutate). Each argument
# is DIR or DIR:FILE,FILE (only those files are mutated; the tests of the
# package that cover each mutant judge it). Writes bin/mutation/NAME.txt
# (one line per mutant) and NAME.jsonl, and prints one summary line per
# target. Run by `make mutation`; not part of CI (docs/TESTING.md says how
# long each target takes). MUTATION_WORKERS (default 2) mutants run at once.
set -euo pipefail
MUTATE=${MUTATE:-bin/mutate}
WORKERS=${MUTATION_WORKERS:-2}
OUT=${MUTATION_OUT:-bin/mutation}
mkdir -p "$OUT"
summary=()
for target in "$@"; do
	dir=${target%%:*}
	files=()
	[[ $target == *:* ]] && files=(-files "${target#*:}")
	name=$(echo "$target" | tr '/:,' '___')
	"$MUTATE" -workers "$WORKERS" "${files[@]}" -json "$OUT/$name.jsonl" "./$dir" >"$OUT/$name.txt" 2>&1 || true
	line=$(tail -n 1 "$OUT/$name.txt")
	echo "$line"
	summary+=("$line")
	grep -E '^(LIVED|TIMED OUT)' "$OUT/$name.txt" | sed 's/^/    /' || true
done
printf '%s\n' "${summary[@]}" >"$OUT/summary.txt"
