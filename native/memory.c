/*
 * memory.c: the payload patterns of pattern.c on a network benchmark's
 * buffers wherever its point put them. Host and pinned buffers are host
 * memory, touched here; device buffers (memory = "device") are GPU memory
 * that the provider registered through FI_HMEM, and the CUDA plugin does
 * the same to them on the GPU (kernels/hmem.cu), with the same bytes and
 * the same messages. Each returns 0, or -1 with c->err set.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

static bool on_gpu(const efx_ctx *c) { return c->cfg.memory == EFX_MEMORY_DEVICE; }

/* plan_on_gpu gives the plugin the stamp list of plan p, once per plan. */
static int plan_on_gpu(efx_ctx *c, const efx_plan *p)
{
	efx_mem_plan *m = &c->mem_plan;
	if (m->size == p->size && m->chunk == p->chunk && m->slices == p->slices && m->n == p->n)
		return 0;
	uint64_t cap = EFX_STAMPS * p->n;
	uint64_t *off = malloc(cap * sizeof *off);
	uint32_t *key = malloc(cap * sizeof *key);
	uint8_t *width = malloc(cap);
	int rc = off && key && width ? 0 : efx_fail(c->err, "stamp list of %llu ops: out of memory", (unsigned long long)p->n);
	if (rc == 0) {
		uint32_t n = efx_stamp_list(p, off, key, width);
		rc = c->cuda.dev_stamps(c->gpu, n, off, key, width, p->size, c->err);
	}
	free(off);
	free(key);
	free(width);
	if (rc == 0)
		*m = (efx_mem_plan){.size = p->size, .chunk = p->chunk, .slices = p->slices, .n = p->n};
	return rc;
}

int efx_mem_fill(efx_ctx *c, uint8_t *buf, size_t len, int sender)
{
	if (on_gpu(c))
		return c->cuda.dev_fill(c->gpu, buf, len, sender, c->err);
	efx_fill(buf, len, sender);
	return 0;
}

int efx_mem_stamp(efx_ctx *c, uint8_t *buf, const efx_plan *p, uint64_t seed, int sender)
{
	if (on_gpu(c))
		return plan_on_gpu(c, p) || c->cuda.dev_stamp(c->gpu, buf, seed, sender, 0, c->err) ? -1 : 0;
	efx_stamp(buf, p, seed, sender);
	return 0;
}

int efx_mem_unstamp(efx_ctx *c, uint8_t *buf, const efx_plan *p, int sender)
{
	if (on_gpu(c))
		return plan_on_gpu(c, p) || c->cuda.dev_stamp(c->gpu, buf, 0, sender, 1, c->err) ? -1 : 0;
	efx_unstamp(buf, p, sender);
	return 0;
}

int efx_mem_corrupt(efx_ctx *c, uint8_t *buf, size_t len)
{
	if (on_gpu(c))
		return c->cuda.dev_corrupt(c->gpu, buf, len, c->err);
	efx_corrupt(buf, len);
	return 0;
}

int efx_mem_check(efx_ctx *c, const uint8_t *buf, const efx_plan *p, uint64_t seed, int sender, bool full)
{
	if (on_gpu(c))
		return plan_on_gpu(c, p) || c->cuda.dev_check(c->gpu, buf, p->size, seed, sender, full, c->err) ? -1 : 0;
	return efx_check(buf, p, seed, sender, full, c->err);
}
