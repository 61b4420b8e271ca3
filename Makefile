# The two commands of the README: `make run` and `make test`.
.PHONY: run test test-cgroup2 build generate fmt vet vulncheck bench bench-leaderboard bench-worker e2e soak

# The toolchain line of go.mod names the Go the platform is built with (for
# the standard library's security fixes); auto fetches it where the
# machine's Go is older, unless the environment says otherwise.
export GOTOOLCHAIN ?= auto

# templ renders web/page/*.templ into the committed *_templ.go files.
TEMPL ?= $(shell command -v templ 2>/dev/null || echo $(shell go env GOPATH)/bin/templ)

run:
	scripts/run.sh

test:
	scripts/test.sh

# The sandbox on a cgroup v2 kernel, booted under emulation: the probe, the
# hostile suites, battleship --sandbox and a worker's ranked matches.
test-cgroup2:
	scripts/cgroup2/run.sh

build:
	go build -o bin/ ./cmd/...

generate:
	$(TEMPL) generate -path web

fmt:
	gofmt -l -w $$(git ls-files '*.go' | grep -v '_templ.go$$')

# go vet and staticcheck.
vet:
	scripts/vet.sh

# govulncheck: the known vulnerabilities the code reaches (docs/operations.md).
vulncheck:
	scripts/vulncheck.sh

bench:
	go test -run '^$$' -bench . -benchmem ./internal/...

# Leaderboard page under load: 10,000 bots, 1,000,000 matches.
bench-leaderboard:
	scripts/bench-leaderboard.sh

# The browser test alone: register, upload, build, challenge, replay.
e2e:
	go test -count=1 -run TestBrowserEndToEnd -v ./cmd/portal

# The season unattended under faults (SOAK_MINUTES, default 10).
soak:
	scripts/soak.sh

# Matches of two Python starter bots through the whole pipeline, unsandboxed
# and sandboxed: throughput, queue wait and the cost of a round.
# Flags through BENCH_FLAGS, e.g. BENCH_FLAGS=-n=40.
bench-worker:
	go build -o bin/ ./cmd/worker
	go build -o bin/benchworker ./scripts/benchworker
	bin/benchworker $(BENCH_FLAGS)
