/*
 * bench.c: what every benchmark shares: the table of benchmarks, opening
 * the step, running one message size against every peer, and the seeds that
 * tie a payload to its size, pair and iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

typedef struct bench {
	const char *name;
	int min_ranks;
	int (*open)(efx_ctx *c);                                          /* the step's resources */
	int (*run)(efx_ctx *c, uint64_t size, int peer, efx_sample *out); /* pairwise: rank 0 with peer */
	int (*size)(efx_ctx *c, uint64_t size, efx_sample *out);          /* or one size, alone */
} bench;

static const bench benches[] = {
	{"sendrecv", 2, efx_fabric_open, efx_sendrecv, NULL},
	{"write", 2, efx_fabric_open, efx_write, NULL},
	{"ipc", 2, efx_ipc_open, efx_ipc, NULL},
	{"queue", 1, efx_queue_open, NULL, efx_queue},
};

static const bench *find(const char *name)
{
	for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
		if (strcmp(benches[i].name, name) == 0)
			return &benches[i];
	return NULL;
}

/* efx_seed ties a payload to its size, its pair (named by the non-zero rank) and iteration. */
uint64_t efx_seed(uint64_t size, int pair, uint64_t it)
{
	return (size * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(uint32_t)pair << 32) ^ it;
}

int efx_open(const efx_config *cfg, efx_info *info, efx_ctx **out, char *err)
{
	*out = NULL;
	const bench *b = find(cfg->benchmark);
	if (!b)
		return efx_fail(err, "unknown benchmark \"%s\"", cfg->benchmark);
	if (info->world < b->min_ranks)
		return efx_fail(err, "%s needs at least %d ranks, got %d", cfg->benchmark, b->min_ranks, info->world);
	if (cfg->max_size == 0 || cfg->chunk == 0 || cfg->window == 0 || cfg->iterations == 0)
		return efx_fail(err, "max size, chunk, window and iterations must be positive");
	efx_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return efx_fail(err, "allocate context: out of memory");
	c->cfg = *cfg; /* provider and nic point into the caller's memory: read during open only */
	snprintf(c->benchmark, sizeof c->benchmark, "%s", cfg->benchmark);
	c->cfg.benchmark = c->benchmark;
	c->info = info;
	c->err = err;
	c->last_progress = efx_now();
	c->lat = calloc(cfg->iterations, sizeof *c->lat);
	int rc = c->lat ? b->open(c) : efx_fail(err, "allocate latencies: out of memory");
	c->cfg.provider = c->cfg.nic = NULL;
	if (rc) {
		efx_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

/* efx_run measures one size: rank 0 against each peer in turn, or alone. */
int efx_run(efx_ctx *c, uint64_t size, efx_sample *out, int *n, char *err)
{
	c->err = err;
	*n = 0;
	if (size == 0 || size > c->cfg.max_size)
		return efx_fail(err, "size %llu outside 1..%llu", (unsigned long long)size,
				(unsigned long long)c->cfg.max_size);
	const bench *b = find(c->benchmark);
	if (b->size) {
		int got = b->size(c, size, out);
		*n = got > 0 ? got : 0;
		return got < 0 ? -1 : efx_barrier(c);
	}
	int me = c->info->rank;
	for (int peer = 1; peer < c->info->world; peer++) {
		if (me != 0 && me != peer)
			continue;
		efx_sample *s = &out[*n];
		memset(s, 0, 2 * sizeof *s);
		s[0].size = s[1].size = size;
		s[0].peer = s[1].peer = me == 0 ? peer : 0;
		s[0].role = s[1].role = me == 0 ? EFX_ROLE_INITIATOR : EFX_ROLE_TARGET;
		c->last_progress = efx_now();
		int got = b->run(c, size, s[0].peer, s);
		if (got < 0)
			return -1;
		*n += got;
	}
	return efx_barrier(c);
}

void efx_close(efx_ctx *c)
{
	if (!c)
		return;
	efx_fabric_close(c);
	if (c->gpu)
		c->cuda.close(c->gpu);
	efx_cuda_unload(&c->cuda);
	free(c->lat);
	free(c);
}
