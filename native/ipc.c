/*
 * ipc.c: GPU to GPU inside a node through CUDA IPC (NVLink where the GPUs
 * are linked). Every rank exports its GPU buffers over MPI and maps every
 * other rank's. The step measures every ordered pair of ranks (source,
 * target) in turn, one pair at a time (efx_ipc_plan): the source's data
 * goes into the target's buffer, written by the source's GPU (push, as
 * published) or read by the target's GPU (pull); with bidir, the two GPUs
 * of each pair push into each other at once. Each copy runs first with the
 * copy kernel of the point's launch, then with the copy engines
 * (cudaMemcpyAsync) as the reference, in the same run. After each, the
 * target checks every word of the last iteration. The rank whose GPU moved
 * the data reports the sample, its peer the other rank of the pair.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

/* efx_ipc_plan fills rounds with the copies of an ipc step on world
 * ranks, one round at a time: every ordered pair (source, target), source
 * by source; with bidir every unordered pair once, both ways in one round.
 * It returns the number of rounds: world * (world - 1), halved for bidir. */
int efx_ipc_plan(int world, int bidir, int32_t (*rounds)[2])
{
	int n = 0;
	for (int a = 0; a < world; a++)
		for (int b = bidir ? a + 1 : 0; b < world; b++)
			if (a != b) {
				rounds[n][0] = a;
				rounds[n][1] = b;
				n++;
			}
	return n;
}

typedef struct ipc {
	int32_t (*rounds)[2];
	int n;
} ipc;

static int ipc_open(efx_ctx *c, void **state)
{
	efx_info *in = c->info;
	if (in->local_size != in->world)
		return efx_fail(c->err, "ipc needs every rank on one node: %d ranks, %d on this node", in->world,
				in->local_size);
	ipc *p = calloc(1, sizeof *p);
	*state = p;
	if (!p || !(p->rounds = calloc((size_t)in->world * (size_t)in->world, sizeof *p->rounds)))
		return efx_fail(c->err, "ipc: out of memory");
	p->n = efx_ipc_plan(in->world, c->cfg.bidir, p->rounds);
	if (efx_cuda_load(&c->cuda, c->err) ||
	    c->cuda.open(in->local_rank, &c->gpu, in->gpu, sizeof in->gpu, c->err))
		return -1;
	char mine[EFX_CUDA_IPC_HANDLES], *all = calloc((size_t)in->world, EFX_CUDA_IPC_HANDLES);
	if (!all)
		return efx_fail(c->err, "ipc: out of memory");
	int rc = c->cuda.ipc_alloc(c->gpu, c->cfg.max_size, in->rank, mine, c->err);
	if (rc == 0)
		rc = efx_allgather(c, mine, all, EFX_CUDA_IPC_HANDLES);
	for (int r = 0; rc == 0 && r < in->world; r++) /* every rank maps every other */
		if (r != in->rank)
			rc = c->cuda.ipc_attach(c->gpu, r, all + (size_t)r * EFX_CUDA_IPC_HANDLES, c->err);
	free(all);
	return rc;
}

static void ipc_close(efx_ctx *c, void *state)
{
	ipc *p = state;
	if (p)
		free(p->rounds);
	free(p);
}

/* spec_of is the copy of size from source to target, with the copy kernel
 * of the point's launch, or the copy engines (grid 0). */
static efx_cuda_copy spec_of(const efx_ctx *c, uint64_t size, int source, int target, bool engines)
{
	uint64_t pair = (uint64_t)source * (uint64_t)c->info->world + (uint64_t)target;
	return (efx_cuda_copy){
		.size = size, .grid = engines ? 0 : c->cfg.grid, .block = c->cfg.block, .pull = c->cfg.pull,
		.warmup = c->cfg.warmup, .iterations = c->cfg.iterations,
		.seed = engines ? efx_seed(size, (int)pair, 1) << 20 : efx_seed(size, (int)pair, 0), .source = source,
		.corrupt = !engines && size == c->cfg.corrupt_size ? (int64_t)(size / 3) : -1,
	};
}

/* one_round runs one round's copies of size, by kernel or by engines, and
 * fills out with this rank's samples (one per copy its GPU moved). Every
 * rank meets at each step, so one round runs alone. */
static int one_round(efx_ctx *c, uint64_t size, const int32_t ab[2], bool engines, efx_sample *out, int *n)
{
	int me = c->info->rank, a = ab[0], b = ab[1];
	bool in = me == a || me == b, both = c->cfg.bidir;
	int other = me == a ? b : a;
	/* this rank's own copies: source me (push, or bidir) or target me (pull) */
	bool source = in && (both || me == a), target = in && (both || me == b);
	efx_cuda_copy out_spec = spec_of(c, size, me, other, engines), in_spec = spec_of(c, size, other, me, engines);
	bool moves = in && (both || (c->cfg.pull ? me == b : me == a));
	const efx_cuda_copy *mine = c->cfg.pull && !both ? &in_spec : &out_spec;
	efx_cuda_timing t = {0};
	if (engines && source && c->cuda.ipc_prepare(c->gpu, &out_spec, c->err)) /* the engines copy the last iteration's data */
		return -1;
	if (efx_barrier(c) || (moves && c->cuda.ipc_copy(c->gpu, other, mine, c->lat, &t, c->err)) || efx_barrier(c) ||
	    (target && c->cuda.ipc_check(c->gpu, &in_spec, c->err)) || efx_barrier(c))
		return -1;
	if (!moves)
		return 0;
	efx_sample *s = &out[(*n)++];
	s->peer = other;
	s->role = EFX_ROLE_INITIATOR;
	if (mine == &in_spec)
		s->bytes_recv = size;
	else
		s->bytes_sent = size;
	s->elapsed_ns = t.elapsed_ns;
	if (engines)
		snprintf(s->variant, sizeof s->variant, "memcpy");
	else
		snprintf(s->variant, sizeof s->variant, "%dx%d", t.grid, t.block);
	efx_summarize(s, c->lat, t.iterations);
	return 0;
}

static int ipc_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	ipc *p = state;
	if (size % 16)
		return efx_fail(c->err, "ipc copies 16-byte words: size %llu is not a multiple of 16",
				(unsigned long long)size);
	for (int r = 0; r < p->n; r++) {
		c->last_progress = efx_now();
		if (one_round(c, size, p->rounds[r], false, out, n) || one_round(c, size, p->rounds[r], true, out, n))
			return -1;
	}
	return 0;
}

const efx_bench efx_ipc = {.name = "ipc", .open = ipc_open, .run = ipc_run, .close = ipc_close};
