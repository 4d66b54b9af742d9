/*
 * bench.c: what every benchmark shares: opening the step, running one
 * message size, the per-peer loop of pairwise benchmarks, and the seeds
 * that tie a payload to its size, sender and iteration.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "efx.h"

/* ipc_run runs the GPU ipc benchmark: rank 0 against each peer in turn. */
static int ipc_run(efx_ctx *c, uint64_t size, efx_sample *out, int *n)
{
	int me = c->info->rank;
	for (int peer = 1; peer < c->info->world; peer++) {
		if (me != 0 && me != peer)
			continue;
		efx_sample *s = &out[*n];
		for (int k = 0; k < 2; k++) {
			s[k].peer = me == 0 ? peer : 0;
			s[k].role = me == 0 ? EFX_ROLE_INITIATOR : EFX_ROLE_TARGET;
		}
		c->last_progress = efx_now();
		int got = efx_ipc(c, size, s[0].peer, s);
		if (got < 0)
			return -1;
		*n += got;
	}
	return 0;
}

/* queue_run runs the GPU-to-CPU queue benchmark on each rank alone. */
static int queue_run(efx_ctx *c, uint64_t size, efx_sample *out, int *n)
{
	int got = efx_queue(c, size, out);
	*n = got > 0 ? got : 0;
	return got < 0 ? -1 : 0;
}

static const efx_bench efx_ipc_bench = {.name = "ipc", .min_ranks = 2, .open = efx_ipc_open, .run = ipc_run};
static const efx_bench efx_queue_bench = {.name = "queue", .min_ranks = 1, .open = efx_queue_open, .run = queue_run};

static const efx_bench *benches[] = {&efx_sendrecv, &efx_write, &efx_all2all, &efx_proxy, &efx_ipc_bench, &efx_queue_bench};

const char *efx_benchmark_name(int i)
{
	return i >= 0 && (size_t)i < sizeof benches / sizeof benches[0] ? benches[i]->name : NULL;
}

static const efx_bench *find(const char *name)
{
	for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
		if (strcmp(benches[i]->name, name) == 0)
			return benches[i];
	return NULL;
}

/* efx_seed ties a payload to its size, its sender and iteration. */
uint64_t efx_seed(uint64_t size, int sender, uint64_t it)
{
	return (size * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(uint32_t)sender << 32) ^ it;
}

static int check_config(const efx_config *cfg, const efx_info *info, char *err)
{
	const efx_bench *b = find(cfg->benchmark);
	if (!b)
		return efx_fail(err, "unknown benchmark \"%s\"", cfg->benchmark);
	if (info->world < b->min_ranks)
		return efx_fail(err, "%s needs at least %d ranks, got %d", cfg->benchmark, b->min_ranks, info->world);
	if (info->world > 65536)
		return efx_fail(err, "%d ranks: remote CQ data names at most 65536", info->world);
	if (cfg->max_size == 0 || cfg->chunk == 0 || cfg->window == 0 || cfg->iterations == 0)
		return efx_fail(err, "max size, chunk, window and iterations must be positive");
	if (cfg->rails == 0 || cfg->rails > EFX_MAX_RAILS)
		return efx_fail(err, "rails must be 1..%d, got %u", EFX_MAX_RAILS, cfg->rails);
	if (cfg->strategy > EFX_ADAPTIVE)
		return efx_fail(err, "unknown strategy %u", cfg->strategy);
	if (cfg->strategy == EFX_ADAPTIVE && strcmp(cfg->benchmark, "sendrecv") == 0)
		return efx_fail(err, "sendrecv cannot use the adaptive strategy: a receive must be posted on the "
				     "rail its message arrives on before the sender picks one");
	return 0;
}

int efx_open(const efx_config *cfg, efx_info *info, efx_ctx **out, char *err)
{
	*out = NULL;
	if (check_config(cfg, info, err))
		return -1;
	efx_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return efx_fail(err, "allocate context: out of memory");
	c->cfg = *cfg; /* provider and nics point into the caller's memory: read during open only */
	/* Adaptive puts an iteration's ops on rails in turn when it has fewer
	 * ops than rails, so fewer warm-up iterations than rails leave a rail
	 * unused, and its first op pays for the connection inside the timed
	 * phase (70 ms on tcp). Both ends of a pair see the same config. */
	if (c->cfg.strategy == EFX_ADAPTIVE && c->cfg.warmup < c->cfg.rails)
		c->cfg.warmup = c->cfg.rails;
	snprintf(c->benchmark, sizeof c->benchmark, "%s", cfg->benchmark);
	c->cfg.benchmark = c->benchmark;
	c->bench = find(c->benchmark);
	c->info = info;
	c->err = err;
	c->last_progress = efx_now();
	c->yield = info->local_size > sysconf(_SC_NPROCESSORS_ONLN);
	c->lat = calloc(cfg->iterations, sizeof *c->lat);
	int rc = c->lat ? c->bench->open(c) : efx_fail(err, "allocate latencies: out of memory");
	c->cfg.provider = c->cfg.nics = NULL;
	if (rc) {
		efx_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

/* efx_open_fabric opens the rails of a network benchmark, writes the
 * sender pattern into its buffer and posts the ack receives it needs. */
int efx_open_fabric(efx_ctx *c)
{
	if (efx_fabric_open(c) || efx_memory_open(c))
		return -1;
	uint64_t stride = efx_stride(c->cfg.max_size); /* each source slot holds the pattern from its own start */
	for (uint32_t s = 0; s < (c->src_slots ? c->src_slots : 1); s++)
		efx_fill(c->buf[BUF_SRC].ptr + s * stride, c->cfg.max_size, c->info->rank);
	return c->bench->acks ? efx_post_acks(c) : 0;
}

/* efx_each_peer runs a pairwise benchmark: rank 0 against each peer in
 * turn, one sample per pair on both ends; other ranks wait. */
int efx_each_peer(efx_ctx *c, uint64_t size, efx_sample *out, int *n,
		  int (*fn)(efx_ctx *c, uint64_t size, int peer, efx_sample *s))
{
	int me = c->info->rank;
	for (int peer = 1; peer < c->info->world; peer++) {
		if (me != 0 && me != peer)
			continue;
		efx_sample *s = &out[*n];
		s->peer = me == 0 ? peer : 0;
		s->role = me == 0 ? EFX_ROLE_INITIATOR : EFX_ROLE_TARGET;
		c->last_progress = efx_now();
		if (fn(c, size, s->peer, s))
			return -1;
		(*n)++; /* only a sample that completed is reported */
	}
	return 0;
}

/* efx_reset_counts starts the per-rail byte and requeue counts of a timed phase. */
void efx_reset_counts(efx_ctx *c)
{
	memset(c->rail_bytes, 0, sizeof c->rail_bytes);
	c->requeued = 0;
}

/* efx_rail_bytes copies the counts of the timed phase into s. */
void efx_rail_bytes(efx_ctx *c, efx_sample *s)
{
	memcpy(s->rail_bytes, c->rail_bytes, sizeof s->rail_bytes);
	s->requeued = c->requeued;
}

/* efx_run measures one size, then waits for every rank: nothing is left in
 * flight when the next size starts. */
int efx_run(efx_ctx *c, uint64_t size, efx_sample *out, int *n, char *err)
{
	c->err = err;
	*n = 0;
	if (size == 0 || size > c->cfg.max_size)
		return efx_fail(err, "size %llu outside 1..%llu", (unsigned long long)size,
				(unsigned long long)c->cfg.max_size);
	memset(out, 0, 2 * (size_t)c->info->world * sizeof *out);
	for (int i = 0; i < 2 * c->info->world; i++)
		out[i].size = size;
	c->last_progress = efx_now();
	if (c->bench->run(c, size, out, n)) {
		*n = 0; /* a size that failed measured nothing: its samples are not reported */
		return -1;
	}
	return efx_barrier(c);
}

void efx_close(efx_ctx *c)
{
	if (!c)
		return;
	efx_fabric_close(c);
	efx_proxy_free(c);
	if (c->gpu)
		c->cuda.close(c->gpu);
	efx_cuda_unload(&c->cuda);
	free(c->lat);
	free(c);
}
