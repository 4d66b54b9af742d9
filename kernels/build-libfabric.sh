#!/usr/bin/env bash
# kernels/build-libfabric.sh SRC PREFIX: builds libfabric from the source
# tree SRC (a release, or a git checkout after its ./autogen.sh) with CUDA,
# into PREFIX, on the GPU machine: what `memory = "device"` needs where the
# machine's own libfabric was built without CUDA and cannot register GPU
# memory (fi_mr_regattr with FI_HMEM_CUDA answers -FI_ENOSYS). Only the
# providers efaxx uses on one node are built: shm, tcp and rxm.
#
# Then: EFAXX_LIBFABRIC=PREFIX kernels/run-gpu.sh ...
set -euo pipefail
src=$(cd "$1" && pwd)
prefix=$2
cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
build=$(mktemp -d)
cd "$build"
"$src/configure" --prefix="$prefix" --with-cuda="$cuda" --enable-shm --enable-tcp --enable-rxm \
	--disable-efa --disable-verbs --disable-psm2 --disable-psm3 --disable-usnic --disable-opx \
	--disable-sockets --disable-udp --disable-mrail --disable-rstream --disable-ucx \
	--disable-perf --disable-hook_debug --disable-hook_hmem --disable-dmabuf_peer_mem \
	>configure.log 2>&1 || { tail -30 configure.log; exit 1; }
grep -iE '^checking (for cuda|whether to enable cuda|cuda)' configure.log || true
make -j"$(nproc)" >make.log 2>&1 || { tail -30 make.log; exit 1; }
make install >install.log 2>&1 || { tail -30 install.log; exit 1; }
echo "libfabric from $src (CUDA at $cuda) installed in $prefix:"
ls -l "$prefix"/lib/libfabric.so*
"$prefix"/bin/fi_info --version
