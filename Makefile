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

# Debian packages the build and the demo need.
DEB_PACKAGES := gcc make git pkg-config ca-certificates \
	libfabric-dev libfabric-bin openmpi-bin libopenmpi-dev libsqlite3-dev

# What the tests, the testbed and the image need beyond that. The Slurm
# tests start their own cluster (slurm/testbed): slurmctld, slurmd and
# munged, and for the accounting path slurmdbd and MariaDB.
# zsh and fish: the shell completion test runs efaxx's script in each shell.
# The container tests build enroot and pyxis (enroot/runtime: libbsd-dev,
# makeself and Slurm's headers; enroot runs with squashfs-tools, jq, zstd,
# pigz, parallel, fuse-overlayfs and squashfuse) and the image (mmdebstrap).
TEST_PACKAGES := slurm-wlm slurm-client munge slurmdbd mariadb-server iproute2 util-linux zsh fish \
	libbsd-dev makeself libslurm-dev slurm-wlm-basic-plugins-dev \
	squashfs-tools jq zstd pigz parallel fuse-overlayfs squashfuse mmdebstrap

# What `make bench` needs beyond that: autotools to build fabtests
# (libfabric's own benchmarks, compared side by side) from its release.
BENCH_PACKAGES := autoconf automake libtool

# Where upstream code is built, outside the repository (never committed).
EXT ?= $(or $(EFAXX_EXT),$(HOME)/.cache/efaxx)

# Options of `make testbed-up`, e.g. TESTBED_ARGS="--hosts 4 --slow h1/nic3=250mbit".
TESTBED_ARGS ?=

.PHONY: all deps test-deps packages build test bench demo figures clean testbed-up testbed-down sqush image

all: build

deps:
	@$(MAKE) --no-print-directory packages PACKAGES="$(DEB_PACKAGES)"
	@$(GO) version >/dev/null 2>&1 || { echo "deps: Go 1.24 or newer is required (https://go.dev/dl), at /usr/local/go or on PATH" >&2; exit 1; }
	@$(GO) mod download

test-deps:
	@$(MAKE) --no-print-directory packages PACKAGES="$(TEST_PACKAGES)"

# packages installs the Debian packages of PACKAGES that are missing.
packages:
	@missing=$$(for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/efaxx ./cmd/efaxx
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/efaxx-runner ./cmd/efaxx-runner

test: build test-deps image
	$(GO) vet ./...
	EFAXX_EXT=$(EXT) $(GO) test -count=1 -timeout 20m ./...

# bench measures efaxx-runner beside its references (memcpy, CMA, a TCP
# socket stream; fabtests 1.17.0, libfabric's own benchmarks, built from
# its pinned release into $(EXT)), side by side in one run, each size of a
# sweep beside the same size alone, and the result store (ingest beside a
# raw insert loop, efaxx show/runs/compare timed as processes, bytes per
# sample row), and efaxx figures over a store of a million synthetic
# samples, and on the testbed with pyxis (root), the write in the image
# against the hosts and the cost of a step's start in a reused container
# against a fresh one: docs/performance.md.
bench: build image
	@$(MAKE) --no-print-directory packages PACKAGES="$(BENCH_PACKAGES)"
	bench/fabtests/build $(EXT)/fabtests-1.17.0
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...
	$(GO) run ./bench -runner bin/efaxx-runner -fabtests $(EXT)/fabtests-1.17.0
	$(GO) run ./cmd/efaxx-storebench -efaxx bin/efaxx
	$(GO) run ./cmd/efaxx-figbench -efaxx bin/efaxx
	EFAXX_EXT=$(EXT) $(GO) run ./cmd/efaxx-containerbench -runner bin/efaxx-runner -image bin/efaxx.sqsh

demo: build
	bin/efaxx --db $(DB) run
	bin/efaxx --db $(DB) runs --limit 8
	bin/efaxx --db $(DB) plot --sweep demo --out $(OUT)/demo.png

# figures draws every figure of plots/figures from the runs committed in
# plots/data (stored in a temporary store): the README's docs/img/*.png,
# and an SVG beside each. A figure whose data is not there yet is named,
# with what it lacks, and skipped.
figures: build
	bin/efaxx figures --data plots/data --allow-missing

# A Slurm cluster on this machine: 2 hosts (network namespaces) with 4 shaped
# NICs each. Then: export SLURM_CONF=/tmp/efaxx-testbed/etc/slurm.conf
testbed-up: deps test-deps
	EFAXX_EXT=$(EXT) slurm/testbed/testbed up $(TESTBED_ARGS)

testbed-down:
	slurm/testbed/testbed down

# The container image, without a registry or Docker: a Debian 12 root
# filesystem from this machine's Debian mirror with what efaxx-runner needs,
# and bin/efaxx-runner and bin/efaxx, as bin/efaxx.sqsh (enroot/mkimage;
# rebuilt only when its inputs change). Needs root.
image: build test-deps
	EFAXX_EXT=$(EXT) enroot/mkimage

# The container image for pyxis: docker build, then enroot import into
# efaxx+TAG.sqsh. Needs Docker and enroot (a build host): the script says what
# is missing. E.g. make sqush SQUSH_ARGS="-o /fsx/images".
SQUSH_ARGS ?=
sqush:
	enroot/sqush $(SQUSH_ARGS)

clean:
	rm -rf bin $(OUT) efaxx-runs

# The CUDA plugin, where nvcc exists: sm_90 code plus PTX for newer GPUs.
NVCC      ?= nvcc
CUDA_GENCODE ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90

.PHONY: kernels
kernels: bin/libefaxx_cuda.so

# One unit per benchmark (kernels/*.cu), linked into one library, with the
# driver's libcuda for stream memory operations (ipc-all2all's steps).
KERNEL_UNITS := $(wildcard kernels/*.cu)

bin/libefaxx_cuda.so: $(KERNEL_UNITS) $(wildcard kernels/*.h kernels/*.cuh)
	@mkdir -p bin
	$(NVCC) -O3 -std=c++17 -Xcompiler -fPIC,-Wall -shared $(CUDA_GENCODE) -o $@ $(KERNEL_UNITS) -lcuda
