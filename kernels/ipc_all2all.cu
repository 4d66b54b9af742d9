/*
 * ipc_all2all.cu: one rank's part of an all-to-all through CUDA IPC. The
 * rank writes into each target's region for it: a copy kernel (ipc.cu's
 * copy with one load in flight a thread, efx_copy_one) or cudaMemcpyAsync
 * (the copy engines, from a buffer per target holding the last
 * iteration's data, since they cannot XOR a key in). Two schedules:
 *
 *  - at once: every copy on a stream of its own, the point's grid shared
 *    among them. Each iteration starts every copy together (the streams
 *    wait on an event of the main stream) and ends when all are done (the
 *    main stream waits on each), as one all-to-all operation does.
 *  - shifted: the copies one after another on the main stream, each with
 *    the whole grid, to rank+1 first, then rank+2, ... (mod world), so
 *    that each moment is a permutation: every GPU sends one copy and
 *    receives one. On 4 H100s a GPU's copy engines carry one copy at a
 *    time at nearly their links' rate and three at once at half of it,
 *    while the ranks keep in step (kernels/explore/a2a_probe.cu,
 *    docs/performance.md). So the ranks keep in step, by either method:
 *    before each copy a rank's stream waits until the copy of the step
 *    before has landed in the rank's own buffer (a flag per sender in the
 *    rank's own region, which carries no data), and after it the stream
 *    sets this rank's flag in its target; CUDA's stream memory operations
 *    do both, on the GPU, with no kernel and no CPU.
 *
 * Events time the iteration and each copy in it (shifted: from the end of
 * the copy before it).
 */
#include <algorithm>

#include "plugin.cuh"

#define A2A_MAX 64                                          /* ranks: the benchmark's MaxRanks */
#define A2A_FLAGS (A2A_MAX * sizeof(unsigned long long)) /* a buffer's step flags */

struct a2a_state {
	uint64_t bytes; /* a region: the largest size */
	uint64_t seq;   /* shifted all-to-alls: the steps done so far, the same count on every rank */
	int rank, world;
	uint4 *src, *dst;       /* dst: world regions of bytes, region s written by rank s */
	uint4 *ref[A2A_MAX];    /* per target: the engines' source, allocated on first use */
	uint4 *peer[A2A_MAX];   /* each target's dst, mapped */
	cudaStream_t s[A2A_MAX]; /* a stream per target */
};

void efx_a2a_free(efx_cuda *c)
{
	a2a_state *st = c->a2a;
	if (!st)
		return;
	for (int i = 0; i < A2A_MAX; i++) {
		if (st->peer[i])
			cudaIpcCloseMemHandle(st->peer[i]);
		if (st->s[i])
			cudaStreamDestroy(st->s[i]);
		cudaFree(st->ref[i]);
	}
	cudaFree(st->src);
	cudaFree(st->dst);
	free(st);
	c->a2a = NULL;
}

extern "C" int efx_cuda_a2a_alloc(efx_cuda *c, uint64_t bytes, int rank, int world, void *handle, char *err)
{
	if (c->a2a) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc-all2all: buffers already allocated");
		return -1;
	}
	if (world < 1 || world > A2A_MAX || rank < 0 || rank >= world) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc-all2all: rank %d of %d: at most %d ranks", rank, world, A2A_MAX);
		return -1;
	}
	a2a_state *st = (a2a_state *)calloc(1, sizeof *st);
	if (!st)
		return efx_nomem(err, "ipc-all2all");
	c->a2a = st;
	st->bytes = bytes < A2A_FLAGS ? A2A_FLAGS : bytes; /* a rank's own region holds its step flags */
	st->rank = rank;
	st->world = world;
	CU(cudaMalloc(&st->src, st->bytes));
	CU(cudaMalloc(&st->dst, st->bytes * (uint64_t)world));
	CU(cudaMemsetAsync(st->dst, 0, st->bytes * (uint64_t)world, c->stream));
	efx_fill_base<<<4 * c->sms, 256, 0, c->stream>>>(st->src, st->bytes / 16, rank);
	LAUNCHED("efx_fill_base");
	CU(cudaStreamSynchronize(c->stream));
	CU(cudaIpcGetMemHandle((cudaIpcMemHandle_t *)handle, st->dst));
	return 0;
}

/* state returns the all-to-all state, or fails when there is none yet. */
static a2a_state *state(efx_cuda *c, char *err)
{
	if (!c->a2a)
		snprintf(err, EFX_CUDA_ERRLEN, "ipc-all2all: no buffers: call efx_cuda_a2a_alloc first");
	return c->a2a;
}

extern "C" int efx_cuda_a2a_attach(efx_cuda *c, int peer, const void *handle, char *err)
{
	a2a_state *st = state(c, err);
	if (!st)
		return -1;
	if (peer < 0 || peer >= st->world || peer == st->rank || st->peer[peer]) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc-all2all: peer %d of %d: not another rank, or mapped already", peer,
			 st->world);
		return -1;
	}
	cudaIpcMemHandle_t h;
	memcpy(&h, handle, sizeof h);
	CU(cudaIpcOpenMemHandle((void **)&st->peer[peer], h, cudaIpcMemLazyEnablePeerAccess));
	CU(cudaStreamCreateWithFlags(&st->s[peer], cudaStreamNonBlocking));
	return 0;
}

/* efx_copy_one is the all-to-all's copy kernel: efx_copy_xor's copy with one
 * 16-byte load and store in flight a thread instead of four. With every
 * GPU's copies at once, four a thread cost a fifth of the aggregate on 4
 * H100s (kernels/explore/a2a_probe.cu: 1087 against 1387 GB/s at 512
 * MiB); with every SM full, one is enough for a copy alone. Hot loop. */
__global__ void efx_copy_one(uint4 *__restrict__ dst, const uint4 *__restrict__ src, uint64_t n, uint4 key)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride)
		dst[i] = efx_xor4(src[i], key);
}

/* region is where rank from's data lands in a dst buffer. */
static uint4 *region(uint4 *dst, const a2a_state *st, int from) { return dst + (uint64_t)from * (st->bytes / 16); }

/* flag is where rank from's step count lives in owner's dst buffer: in
 * owner's own region, which no rank copies into. Not after the regions:
 * a buffer a few bytes over its regions ran the copy engines at two
 * thirds of the rate of one of exactly its regions, 2 GiB, on 4 H100s. */
static CUdeviceptr flag(uint4 *dst, const a2a_state *st, int owner, int from)
{
	return (CUdeviceptr)((unsigned long long *)region(dst, st, owner) + from);
}

/* prepare fills each target's engine source with the last iteration's data. */
static int prepare(efx_cuda *c, a2a_state *st, const efx_cuda_a2a_spec *s, char *err)
{
	for (int p = 0; p < s->npeers; p++) {
		int t = s->peers[p];
		if (!st->ref[t])
			CU(cudaMalloc(&st->ref[t], st->bytes));
		efx_copy_xor<<<4 * c->sms, 256, 0, c->stream>>>(st->ref[t], st->src, s->size / 16,
								 efx_key_of(s->seeds[p] + s->warmup + s->iterations - 1));
		LAUNCHED("efx_copy_xor");
	}
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

/* events owns the events of one measurement: go[i] starts iteration i on
 * the main stream (go[total] ends the last), done[p][i] ends target p's
 * copy of it. */
struct events {
	cudaEvent_t *ev = NULL;
	uint64_t n = 0;
	~events()
	{
		for (uint64_t i = 0; i < n; i++)
			cudaEventDestroy(ev[i]);
		free(ev);
	}
};

/* one_copy launches iteration i's copy to target p on stream sp. */
static int one_copy(efx_cuda *c, a2a_state *st, const efx_cuda_a2a_spec *s, int p, int grid, uint64_t i,
		    cudaStream_t sp, char *err)
{
	int t = s->peers[p];
	uint4 *dst = region(st->peer[t], st, st->rank);
	if (s->grid == 0) {
		CU(cudaMemcpyAsync(dst, st->ref[t], s->size, cudaMemcpyDeviceToDevice, sp));
		return 0;
	}
	efx_copy_one<<<grid, s->block, 0, sp>>>(dst, st->src, s->size / 16, efx_key_of(s->seeds[p] + i));
	LAUNCHED("efx_copy_one");
	return 0;
}

/* check_spec fails a spec that does not fit the buffers or names a rank not mapped. */
static int check_spec(const a2a_state *st, const efx_cuda_a2a_spec *s, char *err)
{
	bool ok = s->size <= st->bytes && s->size % 16 == 0 && s->npeers > 0 && s->npeers < st->world &&
		  s->iterations > 0;
	for (int p = 0; ok && p < s->npeers; p++)
		ok = s->peers[p] >= 0 && s->peers[p] < st->world && st->peer[s->peers[p]];
	if (!ok)
		snprintf(err, EFX_CUDA_ERRLEN,
			 "ipc-all2all: bad copy of %llu bytes to %d peers (regions of %llu, 16-byte multiples, mapped peers)",
			 (unsigned long long)s->size, s->npeers, (unsigned long long)st->bytes);
	return ok ? 0 : -1;
}

extern "C" int efx_cuda_a2a_copy(efx_cuda *c, const efx_cuda_a2a_spec *s, uint64_t *lat, efx_cuda_timing *t, char *err)
{
	a2a_state *st = state(c, err);
	if (!st || check_spec(st, s, err))
		return -1;
	int grid = s->grid;
	if (grid < 0) { /* sized from the device: every SM full */
		int per_sm = 0;
		CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, efx_copy_one, s->block, 0));
		grid = per_sm * c->sms;
	}
	int each = grid; /* shifted: the whole grid for each copy; at once: the grid shared by the copies */
	if (!s->shifted && grid > 0)
		each = grid / s->npeers > 0 ? grid / s->npeers : 1;
	if (grid == 0 && prepare(c, st, s, err))
		return -1;
	uint64_t total = s->warmup + s->iterations, np = (uint64_t)s->npeers;
	int order[A2A_MAX]; /* the copies in the order they run: shifted, by distance from this rank */
	for (int p = 0; p < s->npeers; p++)
		order[p] = p;
	if (s->shifted)
		std::sort(order, order + s->npeers, [&](int a, int b) {
			return (s->peers[a] - st->rank + st->world) % st->world < (s->peers[b] - st->rank + st->world) % st->world;
		});
	events e;
	e.ev = (cudaEvent_t *)calloc((total + 1) * (1 + np), sizeof *e.ev);
	if (!e.ev)
		return efx_nomem(err, "ipc-all2all: timing events");
	for (; e.n < (total + 1) * (1 + np); e.n++)
		CU(cudaEventCreate(&e.ev[e.n]));
	cudaEvent_t *go = e.ev, *done = e.ev + total + 1; /* done[p * total + i] */
	/* Shifted over every peer, the ranks keep in step: a rank starts each
	 * copy once the copy of the step before has landed in its own buffer
	 * (sent by the rank that many places behind), and counts each copy of
	 * its own in its target. No rank runs a step ahead of its senders, so
	 * no GPU is written by two at once: on 4 H100s at 512 MiB the engines
	 * ran free at 900–1490 GB/s, run to run, and in step at 1562; a
	 * barrier over every peer at each step was slower (docs/performance.md). */
	bool step = s->shifted && s->npeers == st->world - 1;
	uint64_t seq = st->seq;
	for (uint64_t i = 0; i < total; i++) {
		CU(cudaEventRecord(go[i], c->stream));
		for (int k = 0; k < s->npeers; k++) {
			int p = order[k], t = s->peers[p];
			cudaStream_t sp = s->shifted ? c->stream : st->s[t];
			if (!s->shifted)
				CU(cudaStreamWaitEvent(sp, go[i], 0));
			if (step && seq > st->seq) { /* the step before: from the rank (its distance) places behind */
				int back = (k > 0 ? k : s->npeers) % st->world;
				int from = (st->rank - back + st->world) % st->world;
				CUDRV(cuStreamWaitValue64(sp, flag(st->dst, st, st->rank, from), seq, CU_STREAM_WAIT_VALUE_GEQ));
			}
			if (one_copy(c, st, s, p, each, i, sp, err))
				return -1;
			if (step) /* after the copy: the write waits for it, and orders its data before the flag */
				CUDRV(cuStreamWriteValue64(sp, flag(st->peer[t], st, t, st->rank), ++seq,
							   CU_STREAM_WRITE_VALUE_DEFAULT));
			CU(cudaEventRecord(done[p * total + i], sp));
			if (!s->shifted)
				CU(cudaStreamWaitEvent(c->stream, done[p * total + i], 0));
		}
	}
	st->seq = seq;
	CU(cudaEventRecord(go[total], c->stream));
	if (s->corrupt >= 0) { /* test hook: plant one wrong byte in the first target's region */
		efx_flip_byte<<<1, 1, 0, c->stream>>>((uint8_t *)region(st->peer[s->peers[0]], st, st->rank) + s->corrupt);
		LAUNCHED("efx_flip_byte");
	}
	CU(cudaStreamSynchronize(c->stream));
	float ms = 0;
	int before[A2A_MAX]; /* shifted: the copy that runs before copy p, -1 for the first */
	for (int k = 0; k < s->npeers; k++)
		before[order[k]] = k > 0 ? order[k - 1] : -1;
	for (uint64_t k = 0; k <= np; k++) { /* k 0: every iteration; 1 + p: target p's copy in it */
		uint64_t sum = 0, *out = lat + k * s->iterations;
		for (uint64_t i = s->warmup; i < total; i++) {
			cudaEvent_t from = go[i];
			if (k > 0 && s->shifted && before[k - 1] >= 0)
				from = done[(uint64_t)before[k - 1] * total + i];
			CU(cudaEventElapsedTime(&ms, from, k == 0 ? go[i + 1] : done[(k - 1) * total + i]));
			out[i - s->warmup] = (uint64_t)(ms * 1e6);
			sum += out[i - s->warmup];
		}
		t[k] = efx_cuda_timing{sum, s->iterations, grid, grid ? s->block : 0};
	}
	CU(cudaEventElapsedTime(&ms, go[s->warmup], go[total]));
	t[0].elapsed_ns = (uint64_t)(ms * 1e6); /* the whole, not the sum of its rounded parts */
	return 0;
}

extern "C" int efx_cuda_a2a_check(efx_cuda *c, int sender, uint64_t size, uint64_t key, char *err)
{
	a2a_state *st = state(c, err);
	if (!st)
		return -1;
	if (sender < 0 || sender >= st->world || sender == st->rank || size > st->bytes || size % 16) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc-all2all: bad check of %llu bytes from rank %d", (unsigned long long)size,
			 sender);
		return -1;
	}
	unsigned long long h[2] = {0, ~0ULL};
	CU(cudaMemcpyAsync(c->bad, h, sizeof h, cudaMemcpyHostToDevice, c->stream));
	efx_check_xor<<<4 * c->sms, 256, 0, c->stream>>>(region(st->dst, st, sender), size / 16, sender, efx_key_of(key),
							  c->bad);
	LAUNCHED("efx_check_xor");
	CU(cudaMemcpyAsync(h, c->bad, sizeof h, cudaMemcpyDeviceToHost, c->stream));
	CU(cudaStreamSynchronize(c->stream));
	if (h[0] != 0) {
		snprintf(err, EFX_CUDA_ERRLEN,
			 "ipc-all2all: %llu of %llu 16-byte words from rank %d wrong after the last iteration; first at byte %llu",
			 h[0], (unsigned long long)(size / 16), sender, h[1] * 16);
		return -1;
	}
	return 0;
}
