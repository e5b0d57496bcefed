# Herald developer targets. CI runs .ci/run, which calls `make test`.
BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)

.PHONY: test test-race vet generate tools check-generated plugin-author-check bench bench-instructions run build mutation soak soak-full-rate

# bin/herald with the version from git (herald version); the README's
# commands use it. Without git, the Go toolchain's build info is used.
# A release build: no symbol table or DWARF (-s -w) and no local paths
# (-trimpath), as the Dockerfile builds it (docs/BENCHMARKS.md, binary size).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN)/herald ./host

# The README's test command. The plugin SDK (sdk/) is a module of its own,
# which the root's ./... does not reach, so its tests run from its directory.
test:
	go test -count=1 -timeout 20m ./...
	cd sdk && go test -count=1 -timeout 20m ./...

vet:
	go vet ./...
	cd sdk && go vet ./...

# A third party's path: a plugin in an empty module outside the checkout that
# requires the SDK (replaced by ./sdk), built with -mod=mod and run through
# plugintest, and every Go snippet of docs/PLUGINS.md built and tested the
# same way. Part of `make test`.
plugin-author-check:
	cd sdk && go test -count=1 -run 'TestPluginAuthorPath|TestPluginsDocSnippets' .

# The in-process packages under the race detector (the integration suite
# runs herald as a plain binary). Not in CI: it doubles the compile time.
test-race:
	go test -race -count=1 -timeout 20m ./host/internal/... ./plugins/... ./config/...
	cd sdk && go test -race -count=1 -timeout 20m ./...

run:
	go run ./host serve

# Generators are pinned in tools/go.mod so they stay out of the main module.
tools:
	cd tools && GOBIN=$(BIN) go install tool

generate: tools
	cd proto && buf generate --template buf.gen.api.yaml --path herald/api
	cd proto && if [ -d herald/plugin ]; then buf generate --template buf.gen.plugin.yaml --path herald/plugin; fi
# The OpenAPI document, from the REST route table and the protos' descriptors (with comments).
	cd proto && buf build --path herald/api -o $(BIN)/herald-api.binpb
	go run ./host/internal/openapi/gen -descriptors $(BIN)/herald-api.binpb -o host/internal/openapi/openapi.json -md docs/API.md
# The configuration table of docs/CONFIGURATION.md, from the settings table in config/settings.go.
	go run ./config/gen docs/CONFIGURATION.md
# The TypeScript client's types, from the OpenAPI document, when its pinned
# npm packages are installed (cd clients/typescript && npm ci; .ci/run does).
	if [ -d clients/typescript/node_modules ]; then cd clients/typescript && npm run --silent generate; fi

# Fails when committed generated code differs from what `make generate` produces.
check-generated: generate
	git diff --exit-code -- proto sdk/proto host/internal/openapi/openapi.json docs/API.md docs/CONFIGURATION.md clients/typescript/src/schema.d.ts || (echo "generated code is stale: run make generate and commit" >&2; exit 1)
	test -z "$$(git status --porcelain -- proto sdk/proto host/internal/openapi docs/API.md docs/CONFIGURATION.md clients/typescript/src)" || (git status --porcelain -- proto sdk/proto host/internal/openapi docs/API.md docs/CONFIGURATION.md clients/typescript/src; echo "untracked generated files: run make generate and commit" >&2; exit 1)

# Every benchmark of docs/BENCHMARKS.md, each against its baseline in the same
# run. Set HERALD_TEST_DATABASE_URL and HERALD_TEST_REDIS_URL to add the
# PostgreSQL + Redis cases. Takes several minutes.
bench:
	go test -run '^$$' -bench ListBrandVoices -benchtime 1x -count 3 ./host/internal/api
	go test -run '^$$' -bench ListSchedules -benchtime 500x -count 3 ./host/internal/mcp
	go test -run '^$$' -bench 'CollectVsBare|Stats10M' -benchtime 1x -count 3 -timeout 30m ./host/internal/traffic
	go test -run '^$$' -bench CollectPoisoned -benchtime 1x -count 1 -timeout 30m ./host/internal/traffic
	go test -run '^$$' -bench Stats365 -benchtime 200x -count 3 ./host/internal/analytics
	go test -run '^$$' -bench RecordTraffic -benchtime 2s -count 3 ./host/internal/store
	go test -run '^$$' -bench 'BenchmarkQueue/.*/(throughput|drain)' -benchtime 20000x -count 3 ./host/internal/jobs
	go test -run '^$$' -bench 'BenchmarkQueue/.*/latency' -benchtime 2000x -count 3 ./host/internal/jobs
	go test -run '^$$' -bench 'BenchmarkPluginCall|BenchmarkManagerOverheadInProcess' -benchtime 5000x -count 3 ./host/internal/pluginhost
	go test -run '^$$' -bench 'BenchmarkReport' -benchtime 1x -count 3 ./host/internal/visibility
	go test -run '^$$' -bench 'BenchmarkScoring' -benchtime 20x -count 3 ./host/internal/visibility
	go test -run '^$$' -bench AnswerAnalysisThroughput -benchtime 1x -count 3 ./host/internal/visibility/analysis
	HERALD_BENCH_SCHEDULER=1 go test -count=1 -v -run TestSchedulerLag ./integration
	go test -run '^$$' -bench 'Parse2000|Score2000' -benchmem -count 5 ./host/internal/seo
	go test -run '^$$' -bench BenchmarkFairness -benchtime 300x -count 3 ./host/internal/jobs
	cd integration/queuebench && go test -run '^$$' -bench SteadyLoad -benchtime 20000x
	cd integration/queuebench && go test -run '^$$' -bench Drain -benchtime 20000x -count 3

# The answer analysis against the bare Aho-Corasick scan in instructions per
# pass (valgrind's cachegrind; the counts repeat from run to run, unlike times
# on a shared machine). Needs valgrind.
bench-instructions:
	scripts/analysis-instructions.sh

# The fleet run (integration/soak): two hosts on PostgreSQL + Redis, trackers
# due within a window against local engine fakes, beacons and crawler log
# lines for a duration, all on loopback; checks every run once within its
# window, nothing accepted lost, read p99; samples CPU, memory, database size
# and connections into bin/soak/. Needs HERALD_TEST_DATABASE_URL and
# HERALD_TEST_REDIS_URL. The defaults are the scaled run (50 trackers, 5
# minutes); the full size is
#   make soak SOAK_TRACKERS=1000 SOAK_WINDOW=1h SOAK_DURATION=30m SOAK_BEACONS=200 SOAK_LOG_LINES=2000
# (it waits for the run due at the hour's end: over an hour in all). The
# full rate for 30 minutes, not the whole hour's fleet: `make soak-full-rate`
# (500 trackers due within 30 minutes, 0.28 runs/s, 200 beacons/s, 2,000
# log lines/s; 35–40 minutes in all).
# Not part of `make test` (there it compiles and skips).
soak_env = $(foreach v,$(filter SOAK_%,$(.VARIABLES)),HERALD_$(v)=$($(v)))
soak:
	$(soak_env) HERALD_SOAK=1 HERALD_REQUIRE_INTEGRATION=1 go test -count=1 -v -run TestSoak -timeout 3h ./integration/soak
soak-full-rate:
	$(MAKE) soak SOAK_TRACKERS=500 SOAK_WINDOW=30m SOAK_DURATION=30m SOAK_BEACONS=200 SOAK_LOG_LINES=2000

# Mutation testing (tools/mutate) over the packages that hold money,
# tenancy and scoring rules: DIR, or DIR:FILE,FILE to mutate only those
# files. Each mutant runs only the tests that cover its code, and
# comparisons share one build (mutant schemata). Reports go to
# bin/mutation/. Needs the integration services (PostgreSQL, Redis) as
# `make test` does. Not in CI: all targets take about an hour on a 2-core
# machine (docs/TESTING.md has the scores and times); pass
# MUTATION_TARGETS to run fewer, MUTATION_WORKERS for more parallelism.
MUTATION_TARGETS ?= host/internal/quota host/internal/site sdk:guard.go host/internal/jobs host/internal/api host/internal/agent host/internal/seo host/internal/store host/internal/visibility
mutation:
	cd tools && go build -o $(BIN)/mutate ./mutate
	MUTATE=$(BIN)/mutate scripts/mutation.sh $(MUTATION_TARGETS)
