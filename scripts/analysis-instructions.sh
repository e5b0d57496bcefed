#!/usr/bin/env bash
# Instructions per pass of the answer analysis and of the bare Aho-Corasick
# scan over the same bytes (BenchmarkAnswerAnalysisInstructions), counted by
# valgrind's cachegrind: each side is run for 6 and for 11 passes after the
# same corpus load, and the difference is divided by 5, so the load and the
# start-up cancel out. Garbage collection is off (GOGC=off) and one thread
# runs Go code (GOMAXPROCS=1), so the counts repeat to within 0.1% from run
# to run (the corpus's map order still varies); the allocation work is counted, the collection is not (the
# throughput benchmark's CPU time has it). HERALD_ANALYSIS_MB sets the corpus
# size (2 MB unless set). Needs valgrind (Debian: apt-get install valgrind).
set -euo pipefail
command -v valgrind >/dev/null || { echo "analysis-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go test -c -o "$bin/analysis.test" ./host/internal/visibility/analysis)
cd "$root/host/internal/visibility/analysis" # the benchmark reads testdata/
count() { # side passes → instructions
	GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$bin/analysis.test" -test.run '^$' -test.bench "AnswerAnalysisInstructions/$1\$" -test.benchtime "${2}x" 2>&1 |
		sed -n 's/.*I *refs: *//p' | tr -d ,
}
mb=${HERALD_ANALYSIS_MB:-2}
declare -A per
for side in herald bare; do
	a=$(count "$side" 6)
	b=$(count "$side" 11)
	per[$side]=$(((b - a) / 5))
	awk -v s="$side" -v n="${per[$side]}" -v mb="$mb" 'BEGIN { printf "%-7s %6.1f M instructions per pass, %5.1f per byte\n", s, n / 1e6, n / (mb * 1048576) }'
done
awk -v h="${per[herald]}" -v b="${per[bare]}" -v mb="$mb" 'BEGIN { printf "ratio   %.2f (herald over bare, %d MB of answers)\n", h / b, mb }'
