# efaxx: build, test and demo. `make demo` and `make test` each do all set-up
# on a fresh Debian 12 machine (as root, or with sudo).

GO       ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
DB       ?= efaxx.db

# SQLite's median() and percentile() (go-sqlite3 compiles them in under
# this tag); results.Open refuses a binary built without them.
export GOFLAGS := $(GOFLAGS) -tags=sqlite_percentile
OUT      ?= out

# Debian packages the build, the tests and the demo need.
DEB_PACKAGES := gcc make git pkg-config ca-certificates \
	libfabric-dev libfabric-bin openmpi-bin libopenmpi-dev libsqlite3-dev

.PHONY: all deps build test bench demo clean

all: build

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(GO) version >/dev/null 2>&1 || { echo "deps: Go 1.24 or newer is required (https://go.dev/dl), at /usr/local/go or on PATH" >&2; exit 1; }
	@$(GO) mod download

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/efaxx ./cmd/efaxx
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/efaxx-runner ./cmd/efaxx-runner

test: build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

# The store's numbers for docs/performance.md: ingest beside a raw insert
# loop, efaxx show/runs/compare timed as processes, bytes per sample row.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...
	$(GO) run ./cmd/efaxx-storebench -efaxx bin/efaxx

demo: build
	bin/efaxx --db $(DB) run
	bin/efaxx --db $(DB) runs --limit 8
	bin/efaxx --db $(DB) plot --sweep demo --out $(OUT)/demo.png

clean:
	rm -rf bin $(OUT) efaxx-runs
