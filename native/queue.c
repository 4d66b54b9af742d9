/*
 * queue.c: the command queue of kernels/ring.h, from producers to one CPU
 * consumer. GPU producers run in the CUDA plugin. With cpu_producer set the
 * producers are CPU threads here: the same protocol and checks with no GPU,
 * which is how CI exercises it.
 *
 * Per payload size a sample of the ring (variant "ring") and, with GPU
 * producers, one of its floor measured right after it (variant "floor"):
 * iterations = commands, elapsed = all of them (throughput is iterations /
 * elapsed), latency per command = push to completion when blocking, the
 * push alone when not (NBI).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "efx.h"
#include "ring.h"

#define HOST_CAPACITY 8192

static int queue_open(efx_ctx *c, void **state)
{
	if (c->cfg.cpu_producer)
		return 0;
	return efx_cuda_load(&c->cuda, c->err) ||
	       c->cuda.open(c->info->local_rank, &c->gpu, c->info->gpu, sizeof c->info->gpu, c->err);
}

typedef struct producer {
	const efx_ring *r;
	uint64_t first, n, k, step;
	uint64_t corrupt_id; /* test hook: this command is published with a damaged payload */
	bool blocking, polite;
	int64_t timeout_ns;
	uint64_t *lat;
	int failed;
} producer;

/* wait is one turn of a producer's wait loop; it reports a timeout. A
 * polite producer yields, so the thread it waits for can run. */
static bool wait(const producer *a, int64_t t0)
{
	if (a->polite)
		sched_yield();
	return efx_now() - t0 > a->timeout_ns;
}

/* produce is the host build of the GPU producer: thread k pushes commands
 * first + k, first + k + step, ... */
static void *produce(void *p)
{
	producer *a = p;
	uint64_t tail_seen = 0, last = 0;
	for (uint64_t i = a->k; i < a->n; i += a->step) {
		int64_t t0 = efx_now();
		uint64_t pos = efx_ring_claim(a->r);
		while (!efx_ring_room(a->r, pos, &tail_seen))
			if (wait(a, t0))
				return a->failed = 1, NULL;
		if (a->first + i == a->corrupt_id) { /* test hook: publish a command whose payload is damaged */
			uint8_t *cell = efx_ring_cell(a->r, pos);
			efx_ring_fill(cell + EFX_RING_HEADER, a->r->payload, a->first + i, pos);
			efx_store((volatile uint64_t *)(cell + EFX_RING_HEADER), ~0ULL);
			efx_store((volatile uint64_t *)cell, pos + 1);
		} else {
			efx_ring_put(a->r, pos, a->first + i);
		}
		while (a->blocking && !efx_ring_done(a->r, pos))
			if (wait(a, t0))
				return a->failed = 2, NULL;
		a->lat[i] = efx_now() - t0;
		last = pos + 1;
	}
	int64_t t0 = efx_now(); /* NBI: one quiet at the end */
	while (last && !efx_ring_done(a->r, last - 1))
		if (wait(a, t0))
			return a->failed = 3, NULL;
	return NULL;
}

/* host_phase pushes n commands from the cfg's producer threads and pops
 * them on this thread. */
static int host_phase(efx_ctx *c, const efx_ring *r, uint64_t first, uint64_t n, uint64_t total, uint8_t *seen,
		      uint64_t *lat, bool corrupt)
{
	uint32_t np = c->cfg.producers;
	bool polite = true; /* CPU stand-ins share cores with whatever else runs: waiting threads yield */
	producer *a = calloc(np, sizeof *a);
	pthread_t *th = calloc(np, sizeof *th);
	if (!a || !th)
		return free(a), free(th), efx_fail(c->err, "queue: out of memory");
	uint32_t started = 0;
	int rc = 0;
	for (uint32_t k = 0; k < np && rc == 0; k++) {
		a[k] = (producer){r, first, n, k, np, corrupt ? first + n - 1 : UINT64_MAX, c->cfg.blocking != 0, polite,
				  c->cfg.timeout_ns, lat, 0};
		int e = pthread_create(&th[k], NULL, produce, &a[k]);
		if (e == 0)
			started++;
		else /* the producers started give up within the timeout: nothing pops their commands */
			rc = efx_fail_at(c->err, "pthread_create (queue producer %u of %u): %s", k, np, strerror(e));
	}
	/* the consumer checks ids in [0, total); this phase's are [first, first + n) */
	if (rc == 0)
		rc = efx_ring_consume(r, first, n, total, seen, polite, c->cfg.timeout_ns, c->err, EFX_ERRLEN);
	int failed = 0;
	for (uint32_t k = 0; k < started; k++) {
		pthread_join(th[k], NULL);
		failed |= a[k].failed;
	}
	free(a);
	free(th);
	if (rc == 0 && failed)
		rc = efx_fail(c->err, "queue: a producer timed out waiting for %s", failed == 1 ? "room" : "completion");
	return rc;
}

static int host_queue(efx_ctx *c, uint32_t payload, efx_cuda_timing *t)
{
	bool corrupt = payload == c->cfg.corrupt_size;
	uint64_t stride = (EFX_RING_HEADER + payload + 15) & ~15ULL, w = c->cfg.warmup, n = c->cfg.iterations;
	uint64_t ctl[48] __attribute__((aligned(128))) = {0}; /* head, tail, completed on separate lines */
	uint8_t *cells = aligned_alloc(64, HOST_CAPACITY * stride), *seen = calloc(w + n, 1);
	uint64_t *wlat = calloc(w ? w : 1, sizeof *wlat);
	int rc = cells && seen && wlat ? 0 : efx_fail(c->err, "queue: out of memory");
	efx_ring r = {cells, HOST_CAPACITY, stride, payload, &ctl[0], &ctl[16], &ctl[32]};
	if (rc == 0) {
		memset(cells, 0, HOST_CAPACITY * stride);
		rc = host_phase(c, &r, 0, w, w + n, seen, wlat, false);
	}
	int64_t t0 = efx_now();
	if (rc == 0)
		rc = host_phase(c, &r, w, n, w + n, seen, c->lat, corrupt);
	t->elapsed_ns = efx_now() - t0;
	t->iterations = n;
	free(cells);
	free(seen);
	free(wlat);
	return rc;
}

/* gpu measures one size with GPU producers: the ring (variant "ring"),
 * then its floor (variant "floor": the same commands through the same
 * memory with none of the ring's protocol, kernels/efaxx_cuda.h), so
 * every queue sample has its floor from the same run. */
static int gpu(efx_ctx *c, uint64_t size, efx_sample *out)
{
	efx_cuda_queue_spec spec = {
		.cells = c->cfg.cells, .blocking = c->cfg.blocking, .payload = (uint32_t)size,
		.producers = c->cfg.producers, .items = c->cfg.iterations, .warmup = c->cfg.warmup,
		.core = c->cfg.core,
	};
	for (int k = 0; k < 2; k++) {
		efx_cuda_timing t = {0};
		spec.floor = k;
		spec.corrupt = k == 0 && size == c->cfg.corrupt_size;
		if (c->cuda.queue(c->gpu, &spec, c->lat, &t, c->err))
			return -1;
		snprintf(out[k].variant, sizeof out[k].variant, "%s", k ? "floor" : "ring");
		out[k].elapsed_ns = t.elapsed_ns;
		efx_summarize(&out[k], c->lat, t.iterations);
	}
	return 2;
}

/* measure runs one size on this rank alone and returns its samples, or -1. */
static int measure(efx_ctx *c, uint64_t size, efx_sample *out)
{
	if (size < 8 || size % 8)
		return efx_fail(c->err, "queue payloads are whole 8-byte words: size %llu", (unsigned long long)size);
	if (size > UINT32_MAX)
		return efx_fail(c->err, "queue payload lengths are 32 bits: size %llu is more than %llu", (unsigned long long)size,
				(unsigned long long)UINT32_MAX);
	for (int k = 0; k < 2; k++) { /* out holds 2 * world samples */
		memset(&out[k], 0, sizeof out[k]);
		out[k].peer = -1;
		out[k].size = out[k].bytes_sent = size;
	}
	if (!c->cfg.cpu_producer)
		return gpu(c, size, out);
	efx_cuda_timing t = {0};
	if (host_queue(c, (uint32_t)size, &t))
		return -1;
	snprintf(out->variant, sizeof out->variant, "ring");
	out->elapsed_ns = t.elapsed_ns;
	efx_summarize(out, c->lat, t.iterations);
	return 1;
}

static int queue_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	int got = measure(c, size, out);
	*n = got > 0 ? got : 0;
	return got < 0 ? -1 : 0;
}

const efx_bench efx_queue = {.name = "queue", .open = queue_open, .run = queue_run};
