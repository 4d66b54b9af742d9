/*
 * ipc.c: GPU to GPU inside a node through CUDA IPC (NVLink where the GPUs
 * are linked). Every rank exports its GPU buffers over MPI. Rank 0's data
 * goes into each local peer's buffer, written by rank 0's GPU (push, as
 * published) or read by the peer's GPU (pull): first with the copy kernel
 * of the point's launch, then with the copy engines (cudaMemcpyAsync) as
 * the reference, in the same run. After each, the peer checks every word of
 * the last iteration. The GPU that moved the data reports the sample.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

static int ipc_open(efx_ctx *c, void **state)
{
	efx_info *in = c->info;
	if (in->local_size != in->world)
		return efx_fail(c->err, "ipc needs every rank on one node: %d ranks, %d on this node", in->world,
				in->local_size);
	if (efx_cuda_load(&c->cuda, c->err) ||
	    c->cuda.open(in->local_rank, &c->gpu, in->gpu, sizeof in->gpu, c->err))
		return -1;
	char mine[EFX_CUDA_IPC_HANDLES], *all = calloc((size_t)in->world, EFX_CUDA_IPC_HANDLES);
	if (!all)
		return efx_fail(c->err, "ipc: out of memory");
	int rc = c->cuda.ipc_alloc(c->gpu, c->cfg.max_size, in->rank, mine, c->err);
	if (rc == 0)
		rc = efx_allgather(c, mine, all, EFX_CUDA_IPC_HANDLES);
	for (int r = 0; rc == 0 && r < in->world; r++) /* rank 0 maps every peer, a peer maps rank 0 */
		if (r != in->rank && (in->rank == 0 || r == 0))
			rc = c->cuda.ipc_attach(c->gpu, r, all + (size_t)r * EFX_CUDA_IPC_HANDLES, c->err);
	free(all);
	return rc;
}

/* copy runs one way of copying rank 0's data to rank pair (peer is the
 * other rank of the two, from this rank's side) and returns the samples
 * this rank took: 1 on the rank whose GPU moved the data. */
static int copy(efx_ctx *c, int peer, int pair, const efx_cuda_copy *spec, efx_sample *out)
{
	int me = c->info->rank, mover = spec->pull ? pair : 0;
	bool moving = me == mover;
	efx_cuda_timing t = {0};
	if (spec->grid == 0 && me == 0 && c->cuda.ipc_prepare(c->gpu, spec, c->err))
		return -1;
	if (efx_pair_sync(c, peer) || (moving && c->cuda.ipc_copy(c->gpu, me == 0 ? peer : 0, spec, c->lat, &t, c->err)) ||
	    efx_pair_sync(c, peer) || (me != 0 && c->cuda.ipc_check(c->gpu, spec, c->err)) || efx_pair_sync(c, peer))
		return -1;
	if (!moving)
		return 0;
	out->peer = me == 0 ? peer : 0;
	out->role = EFX_ROLE_INITIATOR;
	if (spec->pull)
		out->bytes_recv = spec->size;
	else
		out->bytes_sent = spec->size;
	out->elapsed_ns = t.elapsed_ns;
	if (spec->grid == 0)
		snprintf(out->variant, sizeof out->variant, "memcpy");
	else
		snprintf(out->variant, sizeof out->variant, "%dx%d", t.grid, t.block);
	efx_summarize(out, c->lat, t.iterations);
	return 1;
}

/* pair measures one size between rank 0 and peer both ways, the kernel
 * and the copy engines, and returns how many samples this rank took. */
static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *out)
{
	int pair = c->info->rank == 0 ? peer : c->info->rank;
	if (size % 16)
		return efx_fail(c->err, "ipc copies 16-byte words: size %llu is not a multiple of 16",
				(unsigned long long)size);
	efx_cuda_copy spec = {
		.size = size, .grid = c->cfg.grid, .block = c->cfg.block, .pull = c->cfg.pull,
		.warmup = c->cfg.warmup, .iterations = c->cfg.iterations,
		.seed = efx_seed(size, pair, 0), .source = 0,
		.corrupt = size == c->cfg.corrupt_size ? (int64_t)(size / 3) : -1,
	};
	int n = copy(c, peer, pair, &spec, &out[0]);
	if (n < 0)
		return -1;
	spec.grid = 0; /* the reference: the copy engines */
	spec.seed = efx_seed(size, pair, 1) << 20;
	spec.corrupt = -1;
	int m = copy(c, peer, pair, &spec, &out[n]);
	if (m < 0)
		return -1;
	return n + m;
}

static int ipc_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	return efx_each_peer(c, state, size, out, n, pair);
}

const efx_bench efx_ipc = {.name = "ipc", .open = ipc_open, .run = ipc_run};
