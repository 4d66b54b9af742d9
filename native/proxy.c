/*
 * proxy.c: GPU-initiated RDMA writes through a CPU proxy (Libefaxx proxy).
 *
 * Rank 0's GPU produces each iteration's payload, writing the words that
 * change per iteration (the stamps of native/pattern.c) into one of a few
 * source slots of host memory, fences them out, and pushes one command into
 * a ring (kernels/ring.h). This thread is the proxy: it pops each command
 * and posts the iteration's writes from that slot, exactly as the write
 * benchmark would, and marks the command done once the writes complete
 * locally, which the GPU can see. Blocking: the GPU waits for each
 * command; NBI: only for a slot to come free, and once at the end. The
 * ring's cells live where the point's cells says: pinned host memory or
 * managed memory (Libefaxx's queue types).
 *
 * The same run first measures the CPU writing the same bytes from the same
 * rotating slots (the write benchmark's initiator), the baseline; the
 * peer's side is the write
 * benchmark's target for both, so every iteration is checked there.
 * Samples: variant "cpu" and "gpu", on both ends.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"
#include "ring.h"

#define PROXY_SLOTS 4

/* The benchmark's state, used on rank 0: the writer both variants write
 * through, and what the GPU's commands need. */
typedef struct proxy {
	efx_writer writer; /* one stream: the peer being measured */
	efx_stream stream;
	efx_ring ring;
	uint64_t *off; /* the stamp list of the current plan */
	uint32_t *key;
	uint8_t *width;
	uint64_t pos; /* next ring position to pop */
} proxy;

static int proxy_open(efx_ctx *c, void **state)
{
	if (c->cfg.memory == EFX_MEMORY_DEVICE)
		return efx_fail(c->err, "proxy: its GPU writes each iteration into source slots of host memory, which the "
					"CPU posts; memory \"device\" does not apply (use host or pinned)");
	proxy *p = calloc(1, sizeof *p);
	*state = p;
	if (!p)
		return efx_fail(c->err, "proxy: out of memory");
	p->writer = (efx_writer){.streams = &p->stream, .n = 1};
	if (efx_fabric_open(c, (efx_net){.acks = true, .src_slots = PROXY_SLOTS}))
		return -1;
	if (c->info->rank != 0)
		return 0;
	uint64_t ops = (c->cfg.max_size + c->cfg.chunk - 1) / c->cfg.chunk + EFX_MAX_RAILS; /* split adds one per slice */
	p->off = calloc(EFX_STAMPS * ops, sizeof *p->off);
	p->key = calloc(EFX_STAMPS * ops, sizeof *p->key);
	p->width = calloc(EFX_STAMPS * ops, 1);
	if (!p->off || !p->key || !p->width)
		return efx_fail(c->err, "proxy: out of memory");
	return efx_cuda_attach(c) || c->cuda.host_register(c->gpu, c->buf[BUF_SRC].ptr, c->buf[BUF_SRC].len, c->err);
}

static void proxy_close(efx_ctx *c, void *state)
{
	proxy *p = state;
	if (!p)
		return;
	free(p->off);
	free(p->key);
	free(p->width);
	free(p);
}

/* pop waits for the next command the GPU pushed and returns its iteration;
 * the fabric is progressed meanwhile, so the targets' acks keep coming. */
static int pop(efx_ctx *c, proxy *p, uint64_t total, uint64_t *it)
{
	const uint8_t *payload = efx_ring_cell(&p->ring, p->pos) + EFX_RING_HEADER;
	while (!efx_ring_ready(&p->ring, p->pos) || !efx_ring_check(payload, 8, p->pos, total, it))
		if (efx_progress(c) < 0 || efx_stalled(c, "the GPU's next command"))
			return -1;
	if (*it != p->pos)
		return efx_fail(c->err, "proxy: cell %llu holds the command of iteration %llu", (unsigned long long)p->pos,
				(unsigned long long)*it);
	return 0;
}

/* serve pops n commands and posts each iteration's writes to peer. */
static int serve(efx_ctx *c, proxy *p, const efx_plan *pl, uint64_t n, uint64_t total, uint64_t size)
{
	efx_stream *s = &p->stream;
	for (uint64_t i = 0; i < n; i++, p->pos++) {
		uint64_t it;
		if (pop(c, p, total, &it) || efx_write_slots(c, s, 1, it >= c->nslots ? it - c->nslots + 1 : 0))
			return -1;
		bool hook = size == c->cfg.corrupt_size && it == total - 1;
		if (hook)
			efx_corrupt(efx_src_slot(c, it), size);
		if (efx_write_iteration(c, pl, s, 1, it, size, efx_src_slot(c, it)))
			return -1;
		if (hook)
			efx_corrupt(efx_src_slot(c, it), size);
		efx_ring_release(&p->ring, p->pos);
	}
	return 0;
}

/* phase runs iterations [first, first + n) on the GPU and serves them. */
static int phase(efx_ctx *c, proxy *p, efx_cuda_proxy_spec *spec, const efx_plan *pl, uint64_t total, uint64_t size,
		 efx_cuda_timing *t)
{
	if (spec->n == 0)
		return 0;
	if (c->cuda.proxy_launch(c->gpu, spec, c->err) || serve(c, p, pl, spec->n, total, size))
		return -1;
	return c->cuda.proxy_wait(c->gpu, c->lat, t, c->err);
}

/* gpu measures the GPU-initiated writes of one size to peer, on rank 0. */
static int gpu(efx_ctx *c, proxy *p, uint64_t size, int peer, efx_sample *out)
{
	uint64_t w = c->cfg.warmup, n = c->cfg.iterations;
	efx_plan pl;
	efx_plan_for(c, &pl, size);
	efx_set_slots(c, size, 2);
	efx_stream *s = &p->stream;
	*s = (efx_stream){.peer = peer, .rail = efx_stream_rail(c, 0, peer)};
	c->acked[peer] = c->landed[peer] = 0;
	p->pos = 0;
	efx_cuda_proxy_spec spec = {
		.src = c->buf[BUF_SRC].ptr, .stride = efx_stride(c->cfg.max_size), .slots = PROXY_SLOTS,
		.nstamps = efx_stamp_list(&pl, p->off, p->key, p->width),
		.stamp_off = p->off, .stamp_key = p->key, .stamp_width = p->width,
		.seed = efx_seed(size, 0, 0), .sender = 0, .first = 0, .n = w,
		.blocking = c->cfg.blocking, .timeout_ns = c->cfg.timeout_ns,
	};
	efx_cuda_timing t = {0};
	if (c->cuda.proxy_ring(c->gpu, c->cfg.cells, &p->ring, c->err) || efx_pair_sync(c, peer) ||
	    phase(c, p, &spec, &pl, w + n, size, &t) || efx_write_slots(c, s, 1, w) || efx_pair_sync(c, peer))
		return -1;
	efx_reset_counts(c);
	spec.first = w;
	spec.n = n;
	if (phase(c, p, &spec, &pl, w + n, size, &t))
		return -1;
	out->elapsed_ns = t.elapsed_ns;
	out->bytes_sent = size;
	efx_take_counts(c, out);
	efx_summarize(out, c->lat, n);
	for (uint64_t i = 0; i < PROXY_SLOTS; i++)
		efx_unstamp(efx_src_slot(c, i), &pl, 0);
	return efx_write_slots(c, s, 1, w + n);
}

/* pair measures one peer both ways: the CPU's writes, then the GPU's. */
static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *out)
{
	proxy *p = state;
	snprintf(out[0].variant, sizeof out[0].variant, "cpu");
	snprintf(out[1].variant, sizeof out[1].variant, "gpu");
	efx_loop l = {.c = c, .state = &p->writer, .size = size, .peer = peer};
	if (c->info->rank != 0) {
		if (efx_loop_run(&efx_write_target, &l, &out[0]))
			return -1;
		l = (efx_loop){.c = c, .state = &p->writer, .size = size, .peer = peer};
		return efx_loop_run(&efx_write_target, &l, &out[1]) ? -1 : 2;
	}
	p->stream = (efx_stream){.peer = peer, .rail = efx_stream_rail(c, 0, peer)};
	return efx_loop_run(&efx_write_initiator, &l, &out[0]) || gpu(c, p, size, peer, &out[1]) ? -1 : 2;
}

static int proxy_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	return efx_each_peer(c, state, size, out, n, pair);
}

const efx_bench efx_proxy = {.name = "proxy", .open = proxy_open, .run = proxy_run, .close = proxy_close};
