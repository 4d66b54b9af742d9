/*
 * bench.c: the table of benchmarks and the cgo entry points that run
 * one: open a step, measure one size, close. A benchmark is one file that
 * defines its efx_bench (open, run, close) and one row here; the Go table
 * of benchmarks (package benchmarks) names the same ones, in the same
 * order, and a test holds the two together through efx_benchmark_name.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "efx.h"

static const efx_bench *table[] = {&efx_sendrecv, &efx_send, &efx_write, &efx_all2all, &efx_proxy, &efx_ipc,
				    &efx_ipc_all2all, &efx_queue};

#define NBENCH (int)(sizeof table / sizeof table[0])

const char *efx_benchmark_name(int i) { return i >= 0 && i < NBENCH ? table[i]->name : NULL; }

static const efx_bench *find(const char *name)
{
	for (int i = 0; i < NBENCH; i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

static int check_config(const efx_config *cfg, const efx_info *info, char *err)
{
	const efx_bench *b = find(cfg->benchmark);
	if (!b)
		return efx_fail(err, "unknown benchmark \"%s\"", cfg->benchmark);
	if (info->world > 65536)
		return efx_fail(err, "%d ranks: remote CQ data names at most 65536", info->world);
	if (cfg->max_size == 0 || cfg->chunk == 0 || cfg->window == 0 || cfg->iterations == 0)
		return efx_fail(err, "max size, chunk, window and iterations must be positive");
	if (cfg->rails == 0 || cfg->rails > EFX_MAX_RAILS)
		return efx_fail(err, "rails must be 1..%d, got %u", EFX_MAX_RAILS, cfg->rails);
	if (cfg->strategy > EFX_ADAPTIVE)
		return efx_fail(err, "unknown strategy %u", cfg->strategy);
	return 0; /* what a benchmark takes (duration, strategies) the Go table says, checked before here */
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
	c->peer_gpu = -1;
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
	c->lat = calloc(cfg->duration_ns > 0 ? EFX_MAX_ITERATIONS : cfg->iterations, sizeof *c->lat);
	int rc = c->lat ? c->bench->open(c, &c->state) : efx_fail(err, "allocate latencies: out of memory");
	c->cfg.provider = c->cfg.nics = NULL;
	if (rc) {
		efx_close(c);
		return -1;
	}
	*out = c;
	return 0;
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
	memset(out, 0, (size_t)efx_samples(c->info->world) * sizeof *out);
	for (int i = 0; i < efx_samples(c->info->world); i++)
		out[i].size = size;
	c->last_progress = efx_now();
	if (c->bench->run(c, c->state, size, out, n)) {
		*n = 0; /* a size that failed measured nothing: its samples are not reported */
		return -1;
	}
	int refs = efx_references(c, size, &out[*n]);
	if (refs < 0) {
		*n = 0;
		return -1;
	}
	*n += refs;
	return efx_barrier(c);
}

void efx_close(efx_ctx *c)
{
	if (!c)
		return;
	if (c->bench->close)
		c->bench->close(c, c->state);
	efx_fabric_close(c);
	if (c->gpu)
		c->cuda.close(c->gpu);
	efx_cuda_unload(&c->cuda);
	free(c->lat);
	free(c);
}
