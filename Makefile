# Herald developer targets. CI runs .ci/run, which calls `make test`.
BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)

.PHONY: test test-short generate tools check-generated bench run

# The README's test command.
test:
	go test -count=1 -timeout 20m ./...

run:
	go run ./host serve

# Generators are pinned in tools/go.mod so they stay out of the main module.
tools:
	cd tools && GOBIN=$(BIN) go install tool

generate: tools
	cd proto && buf generate --template buf.gen.api.yaml --path herald/api
	cd proto && if [ -d herald/plugin ]; then buf generate --template buf.gen.plugin.yaml --path herald/plugin; fi

# Fails when committed generated code differs from what `make generate` produces.
check-generated: generate
	git diff --exit-code -- proto || (echo "generated code is stale: run make generate and commit" >&2; exit 1)
	test -z "$$(git status --porcelain -- proto)" || (git status --porcelain -- proto; echo "untracked generated files: run make generate and commit" >&2; exit 1)

bench:
	go test -run '^$$' -bench . -benchtime 3s ./host/... 
