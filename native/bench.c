/*
 * bench.c: what every benchmark shares: opening the step, running one
 * message size against every peer, and the seeds that tie a payload to its
 * size, pair and iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

typedef int (*bench_fn)(efx_ctx *c, uint64_t size, int peer, efx_sample *out);

static const struct {
	const char *name;
	bench_fn run;
} benches[] = {
	{"sendrecv", efx_sendrecv},
	{"write", efx_write},
};

static bench_fn find(const char *name)
{
	for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
		if (strcmp(benches[i].name, name) == 0)
			return benches[i].run;
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
	if (!find(cfg->benchmark))
		return efx_fail(err, "unknown benchmark \"%s\"", cfg->benchmark);
	if (info->world < 2)
		return efx_fail(err, "%s needs at least 2 ranks, got %d", cfg->benchmark, info->world);
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
	int rc = c->lat ? efx_fabric_open(c) : efx_fail(err, "allocate latencies: out of memory");
	c->cfg.provider = c->cfg.nic = NULL;
	if (rc) {
		efx_close(c);
		return -1;
	}
	efx_fill(c->src.ptr, c->src.len, info->rank);
	if (strcmp(c->benchmark, "write") == 0 && info->rank == 0 && efx_post_acks(c)) {
		efx_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

/* efx_run measures one size: rank 0 against each peer in turn. */
int efx_run(efx_ctx *c, uint64_t size, efx_sample *out, int *n, char *err)
{
	c->err = err;
	*n = 0;
	if (size == 0 || size > c->cfg.max_size)
		return efx_fail(err, "size %llu outside 1..%llu", (unsigned long long)size,
				(unsigned long long)c->cfg.max_size);
	bench_fn run = find(c->benchmark);
	int me = c->info->rank;
	for (int peer = 1; peer < c->info->world; peer++) {
		if (me != 0 && me != peer)
			continue;
		memset(&out[*n], 0, sizeof out[*n]);
		out[*n].size = size;
		out[*n].peer = me == 0 ? peer : 0;
		out[*n].role = me == 0 ? EFX_ROLE_INITIATOR : EFX_ROLE_TARGET;
		c->last_progress = efx_now();
		if (run(c, size, out[*n].peer, &out[*n]))
			return -1;
		(*n)++;
	}
	return efx_barrier(c);
}

void efx_close(efx_ctx *c)
{
	if (!c)
		return;
	efx_fabric_close(c);
	free(c->lat);
	free(c);
}
