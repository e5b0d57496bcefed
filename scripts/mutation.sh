#!/usr/bin/env bash
# Mutation testing of the packages that hold money, tenancy and scoring
# rules, with gremlins (github.com/go-gremlins/gremlins, pinned in the
# Makefile). Each argument is DIR or DIR:FILE,FILE (only those files are
# mutated; the package's whole test suite judges each mutant). Prints one
# line per target: killed, lived, not covered, timed out, efficacy and the
# wall time. Run by `make mutation`; not part of CI (see docs/TESTING.md for
# how long each target takes). MUTATION_TIMEOUT_COEFFICIENT (default 10)
# scales gremlins' timeout, a multiple of the package's test time: raise it
# for packages whose tests are quick but whose build is not (agent), or
# every mutant times out in its compile.
set -euo pipefail
GREMLINS=${GREMLINS:-gremlins}
WORKERS=${MUTATION_WORKERS:-1}
OUT=${MUTATION_OUT:-bin/mutation}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
summary=()
for target in "$@"; do
	dir=${target%%:*}
	files=""
	[[ $target == *:* ]] && files=${target#*:}
	# sdk/ is a module of its own: gremlins runs from the module's root.
	moddir=.
	pkg=./$dir
	if [[ $dir == sdk || $dir == sdk/* ]]; then
		moddir=sdk
		pkg=./${dir#sdk}
		pkg=${pkg%/}
		[[ $pkg == . || $pkg == ./ ]] && pkg=.
	fi
	# Only the package itself: files of its subdirectories (examples,
	# test helpers, generated code) are not mutated.
	rel=${dir#sdk}
	rel=${rel#/}
	if [[ $moddir == . ]]; then rel=$dir; fi
	excludes=(-E "^${rel:+$rel/}[^/]+/")
	if [[ -n $files ]]; then
		for f in "$dir"/*.go; do
			base=$(basename "$f")
			[[ $base == *_test.go ]] && continue
			[[ ",$files," == *",$base,"* ]] && continue
			excludes+=(-E "(^|/)${base//./\\.}\$")
		done
	fi
	name=$(echo "$target" | tr '/:,' '___')
	start=$(date +%s)
	(cd "$moddir" && "$GREMLINS" unleash --workers "$WORKERS" --test-cpu 1 --timeout-coefficient "${MUTATION_TIMEOUT_COEFFICIENT:-10}" \
		"${excludes[@]}" -o "$OUT/$name.json" "$pkg") >"$OUT/$name.txt" 2>&1 || true
	secs=$(( $(date +%s) - start ))
	line="$target: $(grep -E '^Killed:' "$OUT/$name.txt" | tr -s ' ') $(grep -E '^Timed out:' "$OUT/$name.txt" | tr -s ' ') $(grep -E '^Test efficacy' "$OUT/$name.txt") (${secs}s)"
	echo "$line"
	summary+=("$line")
	grep -E 'LIVED|NOT COVERED' "$OUT/$name.txt" | sed 's/^/    /' || true
done
printf '%s\n' "${summary[@]}" >"$OUT/summary.txt"
