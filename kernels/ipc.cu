/*
 * ipc.cu: GPU to GPU through CUDA IPC (NVLink where the GPUs are linked).
 * A copy kernel writes this rank's buffer into a peer GPU's buffer (push)
 * or reads the peer's into its own (pull), timed with events around
 * launches that are never synchronised one by one; cudaMemcpyAsync of the
 * same bytes (the copy engines) is the reference. Iteration i writes
 * base ^ key(seed + i), so every launch changes every word, and the target
 * checks every word of the last one.
 */
#include "plugin.cuh"

#define MAX_PEERS 64

struct ipc_state {
	uint64_t bytes;
	int rank;
	uint4 *src, *dst, *ref; /* ref: what the copy engines copy: the last iteration's data */
	uint4 *peer_dst[MAX_PEERS], *peer_src[MAX_PEERS], *peer_ref[MAX_PEERS];
};

void efx_ipc_free(efx_cuda *c)
{
	ipc_state *s = c->ipc;
	if (!s)
		return;
	for (int i = 0; i < MAX_PEERS; i++)
		for (uint4 *p : {s->peer_dst[i], s->peer_src[i], s->peer_ref[i]})
			if (p)
				cudaIpcCloseMemHandle(p);
	cudaFree(s->src);
	cudaFree(s->dst);
	cudaFree(s->ref);
	free(s);
	c->ipc = NULL;
}

__global__ void efx_fill_base(uint4 *p, uint64_t n, int rank)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = efx_base_vec(i, rank);
}

/* efx_copy_xor is the measured copy: 16-byte loads and stores, four in flight
 * per thread, grid-stride so any grid covers the buffer. Hot loop. */
__global__ void efx_copy_xor(uint4 *__restrict__ dst, const uint4 *__restrict__ src, uint64_t n, uint4 key)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
		dst[i] = efx_xor4(a, key);
		dst[i + stride] = efx_xor4(b, key);
		dst[i + 2 * stride] = efx_xor4(c, key);
		dst[i + 3 * stride] = efx_xor4(d, key);
	}
	for (; i < n; i += stride)
		dst[i] = efx_xor4(src[i], key);
}

__global__ void efx_check_xor(const uint4 *p, uint64_t n, int rank, uint4 key, unsigned long long *bad)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		uint4 want = efx_xor4(efx_base_vec(i, rank), key), got = p[i];
		if (got.x != want.x || got.y != want.y || got.z != want.z || got.w != want.w) {
			atomicAdd(&bad[0], 1ULL);
			atomicMin(&bad[1], (unsigned long long)i);
		}
	}
}

__global__ void efx_flip_byte(uint8_t *p) { *p ^= 0x5a; }

extern "C" int efx_cuda_ipc_alloc(efx_cuda *c, uint64_t bytes, int rank, void *handles, char *err)
{
	if (c->ipc) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: buffers already allocated");
		return -1;
	}
	ipc_state *s = (ipc_state *)calloc(1, sizeof *s);
	if (!s)
		return efx_nomem(err, "ipc");
	c->ipc = s;
	s->bytes = bytes;
	s->rank = rank;
	CU(cudaMalloc(&s->src, bytes));
	CU(cudaMalloc(&s->dst, bytes));
	CU(cudaMalloc(&s->ref, bytes));
	CU(cudaMemsetAsync(s->dst, 0, bytes, c->stream));
	efx_fill_base<<<4 * c->sms, 256, 0, c->stream>>>(s->src, bytes / 16, rank);
	LAUNCHED("efx_fill_base");
	CU(cudaStreamSynchronize(c->stream));
	cudaIpcMemHandle_t *h = (cudaIpcMemHandle_t *)handles;
	CU(cudaIpcGetMemHandle(&h[0], s->dst));
	CU(cudaIpcGetMemHandle(&h[1], s->src));
	CU(cudaIpcGetMemHandle(&h[2], s->ref));
	return 0;
}

/* state returns the ipc state, or fails when there is none yet. */
static ipc_state *state(efx_cuda *c, char *err)
{
	if (!c->ipc)
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: no buffers: call efx_cuda_ipc_alloc first");
	return c->ipc;
}

extern "C" int efx_cuda_ipc_attach(efx_cuda *c, int slot, const void *handles, char *err)
{
	ipc_state *s = state(c, err);
	if (!s)
		return -1;
	if (slot < 0 || slot >= MAX_PEERS) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: peer slot %d outside 0..%d", slot, MAX_PEERS - 1);
		return -1;
	}
	cudaIpcMemHandle_t h[3];
	memcpy(h, handles, sizeof h);
	CU(cudaIpcOpenMemHandle((void **)&s->peer_dst[slot], h[0], cudaIpcMemLazyEnablePeerAccess));
	CU(cudaIpcOpenMemHandle((void **)&s->peer_src[slot], h[1], cudaIpcMemLazyEnablePeerAccess));
	CU(cudaIpcOpenMemHandle((void **)&s->peer_ref[slot], h[2], cudaIpcMemLazyEnablePeerAccess));
	return 0;
}

static uint64_t last_key(const efx_cuda_copy *s) { return s->seed + s->warmup + s->iterations - 1; }

extern "C" int efx_cuda_ipc_prepare(efx_cuda *c, const efx_cuda_copy *spec, char *err)
{
	ipc_state *s = state(c, err);
	if (!s)
		return -1;
	efx_copy_xor<<<4 * c->sms, 256, 0, c->stream>>>(s->ref, s->src, spec->size / 16, efx_key_of(last_key(spec)));
	LAUNCHED("efx_copy_xor");
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

/* ends names the buffers of a copy: from this rank to slot, or back. */
static void ends(const ipc_state *st, int slot, const efx_cuda_copy *s, uint4 **dst, const uint4 **src)
{
	if (s->pull) {
		*dst = st->dst;
		*src = s->grid == 0 ? st->peer_ref[slot] : st->peer_src[slot];
	} else {
		*dst = st->peer_dst[slot];
		*src = s->grid == 0 ? st->ref : st->src;
	}
}

/* one_copy launches iteration i: the kernel, or the copy engines for grid 0. */
static int one_copy(efx_cuda *c, uint4 *dst, const uint4 *src, const efx_cuda_copy *s, uint64_t i, char *err)
{
	if (s->grid == 0) {
		CU(cudaMemcpyAsync(dst, src, s->size, cudaMemcpyDeviceToDevice, c->stream));
		return 0;
	}
	efx_copy_xor<<<s->grid, s->block, 0, c->stream>>>(dst, src, s->size / 16, efx_key_of(s->seed + i));
	LAUNCHED("efx_copy_xor");
	return 0;
}

/* events owns the timing events of one measurement. */
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

/* timed runs warmup then timed iterations, an event after each launch. */
static int timed(efx_cuda *c, uint4 *dst, const uint4 *src, const efx_cuda_copy *s, uint64_t *lat, efx_cuda_timing *t,
		 char *err)
{
	events e;
	e.ev = (cudaEvent_t *)calloc(s->iterations + 1, sizeof *e.ev);
	if (!e.ev)
		return efx_nomem(err, "ipc: timing events");
	for (; e.n <= s->iterations; e.n++)
		CU(cudaEventCreate(&e.ev[e.n]));
	for (uint64_t i = 0; i < s->warmup; i++)
		if (one_copy(c, dst, src, s, i, err))
			return -1;
	CU(cudaEventRecord(e.ev[0], c->stream));
	for (uint64_t i = 0; i < s->iterations; i++) {
		if (one_copy(c, dst, src, s, s->warmup + i, err))
			return -1;
		CU(cudaEventRecord(e.ev[i + 1], c->stream));
	}
	CU(cudaEventSynchronize(e.ev[s->iterations]));
	float ms = 0;
	for (uint64_t i = 0; i < s->iterations; i++) {
		CU(cudaEventElapsedTime(&ms, e.ev[i], e.ev[i + 1]));
		lat[i] = (uint64_t)(ms * 1e6);
	}
	CU(cudaEventElapsedTime(&ms, e.ev[0], e.ev[s->iterations]));
	t->elapsed_ns = (uint64_t)(ms * 1e6);
	return 0;
}

extern "C" int efx_cuda_ipc_copy(efx_cuda *c, int slot, const efx_cuda_copy *spec, uint64_t *lat, efx_cuda_timing *t,
				 char *err)
{
	ipc_state *st = state(c, err);
	if (!st)
		return -1;
	if (slot < 0 || slot >= MAX_PEERS || !st->peer_dst[slot] || spec->size > st->bytes || spec->size % 16) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: bad copy of %llu bytes with slot %d (buffers of %llu, 16-byte multiples)",
			 (unsigned long long)spec->size, slot, (unsigned long long)st->bytes);
		return -1;
	}
	efx_cuda_copy s = *spec;
	if (s.grid < 0) { /* sized from the device: every SM full */
		int per_sm = 0;
		CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, efx_copy_xor, s.block, 0));
		s.grid = per_sm * c->sms;
	}
	t->grid = s.grid;
	t->block = s.grid ? s.block : 0;
	t->iterations = s.iterations;
	uint4 *dst;
	const uint4 *src;
	ends(st, slot, &s, &dst, &src);
	if (timed(c, dst, src, &s, lat, t, err))
		return -1;
	if (s.corrupt >= 0) { /* test hook: plant one wrong byte in the target */
		efx_flip_byte<<<1, 1, 0, c->stream>>>((uint8_t *)dst + s.corrupt);
		LAUNCHED("efx_flip_byte");
	}
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

extern "C" int efx_cuda_ipc_check(efx_cuda *c, const efx_cuda_copy *s, char *err)
{
	ipc_state *st = state(c, err);
	if (!st)
		return -1;
	unsigned long long h[2] = {0, ~0ULL};
	CU(cudaMemcpyAsync(c->bad, h, sizeof h, cudaMemcpyHostToDevice, c->stream));
	efx_check_xor<<<4 * c->sms, 256, 0, c->stream>>>(st->dst, s->size / 16, s->source, efx_key_of(last_key(s)), c->bad);
	LAUNCHED("efx_check_xor");
	CU(cudaMemcpyAsync(h, c->bad, sizeof h, cudaMemcpyDeviceToHost, c->stream));
	CU(cudaStreamSynchronize(c->stream));
	if (h[0] != 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: %llu of %llu 16-byte words wrong after the last iteration; first at byte %llu",
			 h[0], (unsigned long long)(s->size / 16), h[1] * 16);
		return -1;
	}
	return 0;
}
