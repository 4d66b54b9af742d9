/*
 * ipc_all2all.c: every GPU of a node writes into every other through
 * CUDA IPC (NVLink where the GPUs are linked), beside the same
 * copies one pair at a time, in the same run: what the node moves when
 * all of it is busy, against the sum of its pairs' rates alone (what all
 * at once would reach if nothing were shared).
 *
 * Every rank's target buffer holds a region per sender. The step
 * (efx_a2a_plan) first has each ordered pair copy alone, source by source,
 * then every rank write to all its peers; each by the copy kernel of the
 * point's launch and by the copy engines (cudaMemcpyAsync). The last step
 * runs on the point's schedule: at once (a stream per peer, the grid
 * shared by the copies) or shifted (one copy at a time, to rank+1 first,
 * each with the whole grid; kernels/ipc_all2all.cu). Iteration
 * i of the copy from s to t writes s's base pattern XOR key(seed(s, t) + i),
 * so every launch changes every word of every region, and the target
 * checks every word of each region written after the last iteration.
 *
 * Samples, all the source's: a pair alone ("528x512", "memcpy"; peer the
 * target), each pair during the all-to-all ("528x512 all2all", "memcpy
 * all2all"), and the rank's whole all-to-all ("... all2all total", peer -1,
 * bytes_sent = one buffer per peer). docs/performance.md says how the
 * node's aggregate is read from them.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

/* efx_a2a_plan fills copies with the copies of an all-to-all step on
 * world ranks as (step, source, target): each ordered pair alone in its own
 * step, in efx_ipc_plan's order, then every pair in one last step. It
 * returns the number of copies, 2 * world * (world - 1). */
int efx_a2a_plan(int world, int32_t (*copies)[3])
{
	int n = 0, steps = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int a = 0; a < world; a++)
			for (int b = 0; b < world; b++)
				if (a != b) {
					copies[n][0] = pass == 0 ? steps++ : steps;
					copies[n][1] = a;
					copies[n][2] = b;
					n++;
				}
	return n;
}

typedef struct a2a {
	int32_t (*copies)[3];
	int n;
	int32_t *peers;  /* a step's targets of this rank */
	int32_t *from;   /* a step's senders into this rank */
	uint64_t *seeds; /* per target */
	uint64_t *lat;   /* iterations x world: the step's, then each target's */
	efx_cuda_timing *t;
} a2a;

static int a2a_open(efx_ctx *c, void **state)
{
	efx_info *in = c->info;
	int w = in->world;
	if (in->local_size != w)
		return efx_fail(c->err, "ipc-all2all needs every rank on one node: %d ranks, %d on this node", w,
				in->local_size);
	a2a *p = calloc(1, sizeof *p);
	*state = p;
	if (!p || !(p->copies = calloc(2 * (size_t)w * (size_t)w, sizeof *p->copies)) ||
	    !(p->peers = calloc((size_t)w, sizeof *p->peers)) || !(p->from = calloc((size_t)w, sizeof *p->from)) ||
	    !(p->seeds = calloc((size_t)w, sizeof *p->seeds)) ||
	    !(p->lat = calloc((size_t)w * c->cfg.iterations, sizeof *p->lat)) || !(p->t = calloc((size_t)w, sizeof *p->t)))
		return efx_fail(c->err, "ipc-all2all: out of memory");
	p->n = efx_a2a_plan(w, p->copies);
	if (efx_cuda_load(&c->cuda, c->err) ||
	    c->cuda.open(in->local_rank, &c->gpu, in->gpu, sizeof in->gpu, c->err))
		return -1;
	char mine[EFX_CUDA_IPC_HANDLE], *all = calloc((size_t)w, EFX_CUDA_IPC_HANDLE);
	if (!all)
		return efx_fail(c->err, "ipc-all2all: out of memory");
	int rc = c->cuda.a2a_alloc(c->gpu, c->cfg.max_size, in->rank, w, mine, c->err);
	if (rc == 0)
		rc = efx_allgather(c, mine, all, EFX_CUDA_IPC_HANDLE);
	for (int r = 0; rc == 0 && r < w; r++) /* every rank maps every other's target buffer */
		if (r != in->rank)
			rc = c->cuda.a2a_attach(c->gpu, r, all + (size_t)r * EFX_CUDA_IPC_HANDLE, c->err);
	free(all);
	return rc;
}

static void a2a_close(efx_ctx *c, void *state)
{
	a2a *p = state;
	if (!p)
		return;
	free(p->copies);
	free(p->peers);
	free(p->from);
	free(p->seeds);
	free(p->lat);
	free(p->t);
	free(p);
}

/* seed_of is the seed of the copy from source to target at size, by
 * kernel or engines: no two copies of a run write the same words. */
static uint64_t seed_of(const efx_ctx *c, uint64_t size, int source, int target, bool engines)
{
	int pair = source * c->info->world + target;
	return engines ? efx_seed(size, pair, 1) << 20 : efx_seed(size, pair, 0);
}

/* sample fills s with one timing of the copies this rank ran. */
static void sample(efx_sample *s, int peer, uint64_t bytes, const efx_cuda_timing *t, uint64_t *lat, const char *what,
		   bool engines)
{
	s->peer = peer;
	s->role = EFX_ROLE_INITIATOR;
	s->bytes_sent = bytes;
	s->elapsed_ns = t->elapsed_ns;
	if (engines)
		snprintf(s->variant, sizeof s->variant, "memcpy%s", what);
	else
		snprintf(s->variant, sizeof s->variant, "%dx%d%s", t->grid, t->block, what);
	efx_summarize(s, lat, t->iterations);
}

/* one_step runs step k's copies of size, by kernel or by engines: this
 * rank's copies to its targets of the step, then, once every rank is done,
 * its check of what its senders wrote. It adds this rank's samples to out. */
static int one_step(efx_ctx *c, a2a *p, int k, uint64_t size, bool engines, efx_sample *out, int *n)
{
	int me = c->info->rank, npeers = 0, nfrom = 0;
	bool all = false;
	for (int i = 0; i < p->n; i++) {
		int32_t *cp = p->copies[i];
		if (cp[0] != k)
			continue;
		all = all || i >= p->n / 2;
		if (cp[1] == me) {
			p->seeds[npeers] = seed_of(c, size, me, cp[2], engines);
			p->peers[npeers++] = cp[2];
		}
		if (cp[2] == me)
			p->from[nfrom++] = cp[1];
	}
	efx_cuda_a2a_spec spec = {
		.size = size, .grid = engines ? 0 : c->cfg.grid, .block = c->cfg.block, .warmup = c->cfg.warmup,
		.iterations = c->cfg.iterations, .npeers = npeers, .peers = p->peers, .seeds = p->seeds,
		/* the schedule is the all-to-all's: a shifted copy waits for its
		 * peers, which copy nothing while a pair runs alone (on 2 GPUs a
		 * pair's copy is every copy a rank has, and it waited forever) */
		.shifted = all && c->cfg.shifted,
		.corrupt = all && !engines && size == c->cfg.corrupt_size ? (int64_t)(size / 3) : -1,
	};
	if (efx_barrier(c) || (npeers > 0 && c->cuda.a2a_copy(c->gpu, &spec, p->lat, p->t, c->err)) || efx_barrier(c))
		return -1;
	uint64_t last = c->cfg.warmup + c->cfg.iterations - 1;
	for (int i = 0; i < nfrom; i++)
		if (c->cuda.a2a_check(c->gpu, p->from[i], size, seed_of(c, size, p->from[i], me, engines) + last, c->err))
			return -1;
	if (efx_barrier(c))
		return -1;
	uint64_t iters = c->cfg.iterations;
	for (int i = 0; i < npeers; i++)
		sample(&out[(*n)++], p->peers[i], size, &p->t[1 + i], p->lat + (1 + (size_t)i) * iters,
		       all ? " all2all" : "", engines);
	if (all && npeers > 0)
		sample(&out[(*n)++], -1, (uint64_t)npeers * size, &p->t[0], p->lat, " all2all total", engines);
	return 0;
}

static int a2a_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	a2a *p = state;
	if (size % 16)
		return efx_fail(c->err, "ipc-all2all copies 16-byte words: size %llu is not a multiple of 16",
				(unsigned long long)size);
	int steps = p->n ? p->copies[p->n - 1][0] + 1 : 0;
	for (int k = 0; k < steps; k++) {
		c->last_progress = efx_now();
		if (one_step(c, p, k, size, false, out, n) || one_step(c, p, k, size, true, out, n))
			return -1;
	}
	return 0;
}

const efx_bench efx_ipc_all2all = {.name = "ipc-all2all", .open = a2a_open, .run = a2a_run, .close = a2a_close};
