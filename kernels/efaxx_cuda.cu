/*
 * efaxx_cuda.cu: libefaxx_cuda.so, the CUDA side of efaxx-runner.
 *
 * ipc:   a copy kernel writes this rank's buffer into a peer GPU's buffer
 *        through CUDA IPC (NVLink where the GPUs are linked), timed with
 *        events around launches that are never synchronised one by one;
 *        cudaMemcpyAsync of the same bytes is the reference. Iteration i
 *        writes base ^ key(seed + i), so every launch changes every word,
 *        and the target checks every word of the last one.
 * queue: GPU threads push commands into the ring of ring.h; a CPU thread
 *        pops and checks every one.
 *
 * Every CUDA call is checked; a failure names the call and CUDA's message.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "efaxx_cuda.h"
#include "pattern.h"
#include "ring.h"

#define CU(call)                                                                                 \
	do {                                                                                     \
		cudaError_t e_ = (call);                                                         \
		if (e_ != cudaSuccess) {                                                         \
			snprintf(err, EFX_CUDA_ERRLEN, "%s:%d: %s: %s", __FILE__, __LINE__, #call, \
				 cudaGetErrorString(e_));                                        \
			return -1;                                                               \
		}                                                                                \
	} while (0)

/* LAUNCHED checks a kernel launch: configuration errors show at once, faults at the next sync. */
#define LAUNCHED(name) CU(cudaGetLastError())

#define MAX_PEERS 64
#define QUEUE_CAPACITY 8192

struct efx_cuda {
	int device, sms;
	cudaStream_t stream;
	/* ipc */
	uint64_t bytes;
	int rank;
	uint4 *src, *dst, *ref; /* ref: what the copy engines copy: the last iteration's data */
	uint4 *peer_dst[MAX_PEERS], *peer_src[MAX_PEERS], *peer_ref[MAX_PEERS];
	unsigned long long *bad; /* device: [0] wrong words, [1] first wrong word */
	double ns_per_cycle;     /* SM clock, measured: per-command times are taken in cycles */
	struct proxy_state *proxy;
};

static __host__ __device__ uint64_t mix64(uint64_t x) { return efx_ring_mix(x); }

/* base_word matches native/pattern.c: word w of rank r's buffer. */
static __device__ uint64_t base_word(uint64_t w, int rank) { return mix64((w << 16) ^ (uint64_t)(uint32_t)rank); }

static uint4 key_of(uint64_t k)
{
	uint64_t a = mix64(k), b = mix64(~k);
	return make_uint4((uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32));
}

static __device__ uint4 base_vec(uint64_t i, int rank)
{
	uint64_t a = base_word(2 * i, rank), b = base_word(2 * i + 1, rank);
	return make_uint4((uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32));
}

static __device__ uint4 xor4(uint4 a, uint4 k) { return make_uint4(a.x ^ k.x, a.y ^ k.y, a.z ^ k.z, a.w ^ k.w); }

__global__ void fill_base(uint4 *p, uint64_t n, int rank)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = base_vec(i, rank);
}

/* copy_xor is the measured copy: 16-byte loads and stores, four in flight
 * per thread, grid-stride so any grid covers the buffer. Hot loop. */
__global__ void copy_xor(uint4 *__restrict__ dst, const uint4 *__restrict__ src, uint64_t n, uint4 key)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
		dst[i] = xor4(a, key);
		dst[i + stride] = xor4(b, key);
		dst[i + 2 * stride] = xor4(c, key);
		dst[i + 3 * stride] = xor4(d, key);
	}
	for (; i < n; i += stride)
		dst[i] = xor4(src[i], key);
}

__global__ void check_xor(const uint4 *p, uint64_t n, int rank, uint4 key, unsigned long long *bad)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		uint4 want = xor4(base_vec(i, rank), key), got = p[i];
		if (got.x != want.x || got.y != want.y || got.z != want.z || got.w != want.w) {
			atomicAdd(&bad[0], 1ULL);
			atomicMin(&bad[1], (unsigned long long)i);
		}
	}
}

__global__ void flip_byte(uint8_t *p) { *p ^= 0x5a; }

/* clock_rate spins for about ms milliseconds of globaltimer and reports the
 * cycles and nanoseconds that passed. */
__global__ void clock_rate(unsigned long long *out, uint64_t ns)
{
	uint64_t g0, g1, c0 = clock64();
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
	while (g1 - g0 < ns);
	out[0] = clock64() - c0;
	out[1] = g1 - g0;
}

static int measure_clock(efx_cuda *c, char *err)
{
	unsigned long long *d, h[2];
	CU(cudaMalloc(&d, sizeof h));
	clock_rate<<<1, 1, 0, c->stream>>>(d, 20000000);
	LAUNCHED("clock_rate");
	CU(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, c->stream));
	CU(cudaStreamSynchronize(c->stream));
	CU(cudaFree(d));
	c->ns_per_cycle = (double)h[1] / (double)h[0];
	return 0;
}

static void free_proxy(efx_cuda *c);

extern "C" int efx_cuda_abi(void) { return EFX_CUDA_ABI; }

extern "C" int efx_cuda_open(int device, efx_cuda **out, char *info, int infolen, char *err)
{
	int n, driver;
	cudaDeviceProp prop;
	CU(cudaGetDeviceCount(&n));
	if (n == 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "no CUDA device");
		return -1;
	}
	efx_cuda *c = (efx_cuda *)calloc(1, sizeof *c);
	c->device = device % n;
	CU(cudaSetDevice(c->device));
	CU(cudaGetDeviceProperties(&prop, c->device));
	CU(cudaDriverGetVersion(&driver));
	CU(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
	CU(cudaMalloc(&c->bad, 2 * sizeof *c->bad));
	c->sms = prop.multiProcessorCount;
	snprintf(info, infolen, "%s, sm_%d%d, %d SMs, device %d of %d, driver %d", prop.name, prop.major, prop.minor,
		 c->sms, c->device, n, driver);
	*out = c;
	return 0;
}

extern "C" void efx_cuda_close(efx_cuda *c)
{
	if (!c)
		return;
	for (int i = 0; i < MAX_PEERS; i++)
		for (uint4 *p : {c->peer_dst[i], c->peer_src[i], c->peer_ref[i]})
			if (p)
				cudaIpcCloseMemHandle(p);
	cudaFree(c->src);
	cudaFree(c->dst);
	cudaFree(c->ref);
	cudaFree(c->bad);
	free_proxy(c);
	cudaStreamDestroy(c->stream);
	free(c);
}

extern "C" int efx_cuda_ipc_alloc(efx_cuda *c, uint64_t bytes, int rank, void *handles, char *err)
{
	c->bytes = bytes;
	c->rank = rank;
	CU(cudaMalloc(&c->src, bytes));
	CU(cudaMalloc(&c->dst, bytes));
	CU(cudaMalloc(&c->ref, bytes));
	CU(cudaMemset(c->dst, 0, bytes));
	fill_base<<<4 * c->sms, 256, 0, c->stream>>>(c->src, bytes / 16, rank);
	LAUNCHED("fill_base");
	CU(cudaStreamSynchronize(c->stream));
	cudaIpcMemHandle_t *h = (cudaIpcMemHandle_t *)handles;
	CU(cudaIpcGetMemHandle(&h[0], c->dst));
	CU(cudaIpcGetMemHandle(&h[1], c->src));
	CU(cudaIpcGetMemHandle(&h[2], c->ref));
	return 0;
}

extern "C" int efx_cuda_ipc_attach(efx_cuda *c, int slot, const void *handles, char *err)
{
	if (slot < 0 || slot >= MAX_PEERS) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: peer slot %d outside 0..%d", slot, MAX_PEERS - 1);
		return -1;
	}
	cudaIpcMemHandle_t h[3];
	memcpy(h, handles, sizeof h);
	CU(cudaIpcOpenMemHandle((void **)&c->peer_dst[slot], h[0], cudaIpcMemLazyEnablePeerAccess));
	CU(cudaIpcOpenMemHandle((void **)&c->peer_src[slot], h[1], cudaIpcMemLazyEnablePeerAccess));
	CU(cudaIpcOpenMemHandle((void **)&c->peer_ref[slot], h[2], cudaIpcMemLazyEnablePeerAccess));
	return 0;
}

static uint64_t last_key(const efx_cuda_copy *s) { return s->seed + s->warmup + s->iterations - 1; }

extern "C" int efx_cuda_ipc_prepare(efx_cuda *c, const efx_cuda_copy *s, char *err)
{
	copy_xor<<<4 * c->sms, 256, 0, c->stream>>>(c->ref, c->src, s->size / 16, key_of(last_key(s)));
	LAUNCHED("copy_xor");
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

/* ends names the buffers of a copy: from this rank to slot, or back. */
static void ends(efx_cuda *c, int slot, const efx_cuda_copy *s, uint4 **dst, const uint4 **src)
{
	if (s->pull) {
		*dst = c->dst;
		*src = s->grid == 0 ? c->peer_ref[slot] : c->peer_src[slot];
	} else {
		*dst = c->peer_dst[slot];
		*src = s->grid == 0 ? c->ref : c->src;
	}
}

/* one_copy launches iteration i: the kernel, or the copy engines for grid 0. */
static int one_copy(efx_cuda *c, uint4 *dst, const uint4 *src, const efx_cuda_copy *s, uint64_t i, char *err)
{
	if (s->grid == 0) {
		CU(cudaMemcpyAsync(dst, src, s->size, cudaMemcpyDeviceToDevice, c->stream));
		return 0;
	}
	copy_xor<<<s->grid, s->block, 0, c->stream>>>(dst, src, s->size / 16, key_of(s->seed + i));
	LAUNCHED("copy_xor");
	return 0;
}

/* timed runs warmup then timed iterations, an event after each launch. */
static int timed(efx_cuda *c, uint4 *dst, const uint4 *src, const efx_cuda_copy *s, uint64_t *lat, efx_cuda_timing *t,
		 char *err)
{
	cudaEvent_t *ev = (cudaEvent_t *)calloc(s->iterations + 1, sizeof *ev);
	int rc = ev ? 0 : -1;
	for (uint64_t i = 0; i <= s->iterations && rc == 0; i++)
		rc = cudaEventCreate(&ev[i]) == cudaSuccess ? 0 : -1;
	for (uint64_t i = 0; i < s->warmup && rc == 0; i++)
		rc = one_copy(c, dst, src, s, i, err);
	if (rc == 0)
		rc = cudaEventRecord(ev[0], c->stream) == cudaSuccess ? 0 : -1;
	for (uint64_t i = 0; i < s->iterations && rc == 0; i++) {
		rc = one_copy(c, dst, src, s, s->warmup + i, err);
		if (rc == 0)
			rc = cudaEventRecord(ev[i + 1], c->stream) == cudaSuccess ? 0 : -1;
	}
	if (rc == 0)
		rc = cudaEventSynchronize(ev[s->iterations]) == cudaSuccess ? 0 : -1;
	float ms = 0;
	for (uint64_t i = 0; i < s->iterations && rc == 0; i++) {
		cudaEventElapsedTime(&ms, ev[i], ev[i + 1]);
		lat[i] = (uint64_t)(ms * 1e6);
	}
	if (rc == 0 && cudaEventElapsedTime(&ms, ev[0], ev[s->iterations]) == cudaSuccess)
		t->elapsed_ns = (uint64_t)(ms * 1e6);
	for (uint64_t i = 0; ev && i <= s->iterations; i++)
		if (ev[i])
			cudaEventDestroy(ev[i]);
	free(ev);
	if (rc != 0 && err[0] == 0)
		CU(cudaGetLastError());
	return rc;
}

extern "C" int efx_cuda_ipc_copy(efx_cuda *c, int slot, const efx_cuda_copy *spec, uint64_t *lat, efx_cuda_timing *t,
				 char *err)
{
	if (slot < 0 || slot >= MAX_PEERS || !c->peer_dst[slot] || spec->size > c->bytes || spec->size % 16) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: bad copy of %llu bytes with slot %d (buffers of %llu, 16-byte multiples)",
			 (unsigned long long)spec->size, slot, (unsigned long long)c->bytes);
		return -1;
	}
	efx_cuda_copy s = *spec;
	if (s.grid < 0) { /* sized from the device: every SM full */
		int per_sm = 0;
		CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_xor, s.block, 0));
		s.grid = per_sm * c->sms;
	}
	t->grid = s.grid;
	t->block = s.grid ? s.block : 0;
	t->iterations = s.iterations;
	uint4 *dst;
	const uint4 *src;
	ends(c, slot, &s, &dst, &src);
	if (timed(c, dst, src, &s, lat, t, err))
		return -1;
	if (s.corrupt >= 0) { /* test hook: plant one wrong byte in the target */
		flip_byte<<<1, 1, 0, c->stream>>>((uint8_t *)dst + s.corrupt);
		LAUNCHED("flip_byte");
	}
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

extern "C" int efx_cuda_ipc_check(efx_cuda *c, const efx_cuda_copy *s, char *err)
{
	unsigned long long h[2] = {0, ~0ULL};
	CU(cudaMemcpyAsync(c->bad, h, sizeof h, cudaMemcpyHostToDevice, c->stream));
	check_xor<<<4 * c->sms, 256, 0, c->stream>>>(c->dst, s->size / 16, s->source, key_of(last_key(s)), c->bad);
	LAUNCHED("check_xor");
	CU(cudaMemcpyAsync(h, c->bad, sizeof h, cudaMemcpyDeviceToHost, c->stream));
	CU(cudaStreamSynchronize(c->stream));
	if (h[0] != 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "ipc: %llu of %llu 16-byte words wrong after the last iteration; first at byte %llu",
			 h[0], (unsigned long long)(s->size / 16), h[1] * 16);
		return -1;
	}
	return 0;
}

/* ---- queue ------------------------------------------------------------ */

/* produce is run by spec->producers GPU threads; thread k pushes commands
 * k, k + producers, ... A wait that outlasts timeout cycles sets *fail and
 * ends the thread, so a dead consumer cannot hang the GPU. */
__global__ void produce(efx_ring r, uint64_t first, uint64_t n, uint32_t producers, int blocking,
			uint64_t timeout, uint64_t corrupt_id, unsigned long long *lat, unsigned long long *fail)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= producers)
		return;
	uint64_t tail_seen = 0, last = 0;
	for (uint64_t i = k; i < n; i += producers) {
		uint64_t t0 = clock64();
		uint64_t pos = efx_ring_claim(&r);
		while (!efx_ring_room(&r, pos, &tail_seen))
			if (clock64() - t0 > timeout) {
				atomicExch(fail, 1ULL);
				return;
			}
		efx_ring_put(&r, pos, first + i);
		if (first + i == corrupt_id) /* test hook: damage a published command */
			efx_store((volatile uint64_t *)(efx_ring_cell(&r, pos) + EFX_RING_HEADER), ~0ULL);
		while (blocking && !efx_ring_done(&r, pos))
			if (clock64() - t0 > timeout) {
				atomicExch(fail, 2ULL);
				return;
			}
		lat[i] = clock64() - t0;
		last = pos + 1;
	}
	uint64_t t0 = clock64(); /* NBI: one quiet at the end */
	while (last && !efx_ring_done(&r, last - 1))
		if (clock64() - t0 > timeout) {
			atomicExch(fail, 3ULL);
			return;
		}
}

typedef struct consumer {
	efx_ring r;
	uint64_t total;
	uint8_t *seen;
	int64_t timeout_ns;
	int core, rc;
	char err[EFX_CUDA_ERRLEN];
} consumer;

static void *consume(void *p)
{
	consumer *a = (consumer *)p;
	if (a->core >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(a->core, &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	a->rc = efx_ring_consume(&a->r, 0, a->total, a->total, a->seen, 0, a->timeout_ns, a->err, sizeof a->err);
	return NULL;
}

/* queue_mem owns what one queue measurement allocates. */
struct queue_mem {
	int cells = -1;
	uint8_t *cells_ptr = NULL;
	uint64_t *ctl = NULL, *head = NULL;
	unsigned long long *lat = NULL, *fail = NULL;
	uint8_t *seen = NULL;
	~queue_mem()
	{
		if (cells == EFX_CELLS_PINNED)
			cudaFreeHost(cells_ptr);
		else if (cells_ptr)
			cudaFree(cells_ptr);
		cudaFreeHost(ctl);
		cudaFree(head);
		cudaFree(lat);
		cudaFree(fail);
		free(seen);
	}
};

static int alloc_cells(queue_mem *m, const efx_cuda_queue_spec *s, uint64_t bytes, char *err)
{
	switch (s->cells) {
	case EFX_CELLS_PINNED:
		CU(cudaHostAlloc(&m->cells_ptr, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
		break;
	case EFX_CELLS_MANAGED:
		CU(cudaMallocManaged(&m->cells_ptr, bytes));
		break;
	default:
		snprintf(err, EFX_CUDA_ERRLEN,
			 "queue: cells in device memory need GDRCopy to map them for the CPU, and /dev/gdrdrv is absent");
		return -1;
	}
	m->cells = s->cells;
	memset(m->cells_ptr, 0, bytes);
	return 0;
}

static int launch_producers(efx_cuda *c, queue_mem *m, const efx_ring *r, const efx_cuda_queue_spec *s,
			    uint64_t first, uint64_t n, int64_t timeout_ns, char *err)
{
	uint32_t block = s->producers < 256 ? s->producers : 256;
	uint32_t grid = (s->producers + block - 1) / block;
	uint64_t cycles = (uint64_t)(timeout_ns / c->ns_per_cycle);
	uint64_t corrupt = s->corrupt && first == s->warmup ? s->warmup + s->items - 1 : ~0ULL;
	produce<<<grid, block, 0, c->stream>>>(*r, first, n, s->producers, s->blocking, cycles, corrupt, m->lat, m->fail);
	LAUNCHED("produce");
	return 0;
}

static int queue_rings(efx_cuda *c, queue_mem *m, const efx_cuda_queue_spec *s, efx_ring *host, efx_ring *dev,
		       char *err)
{
	uint64_t stride = (EFX_RING_HEADER + s->payload + 15) & ~15ULL;
	if (alloc_cells(m, s, QUEUE_CAPACITY * stride, err))
		return -1;
	CU(cudaHostAlloc(&m->ctl, 256, cudaHostAllocMapped | cudaHostAllocPortable));
	memset(m->ctl, 0, 256);
	CU(cudaMalloc(&m->head, sizeof *m->head));
	CU(cudaMemset(m->head, 0, sizeof *m->head));
	*host = efx_ring{m->cells_ptr, QUEUE_CAPACITY, stride, s->payload, NULL, m->ctl, m->ctl + 16};
	*dev = *host;
	dev->head = m->head;
	if (m->cells == EFX_CELLS_PINNED)
		CU(cudaHostGetDevicePointer((void **)&dev->cells, m->cells_ptr, 0));
	CU(cudaHostGetDevicePointer((void **)&dev->tail, m->ctl, 0));
	dev->completed = dev->tail + 16; /* tail and completed sit on separate 128-byte lines */
	return 0;
}

extern "C" int efx_cuda_queue(efx_cuda *c, const efx_cuda_queue_spec *s, uint64_t *lat, efx_cuda_timing *t, char *err)
{
	const int64_t timeout_ns = s->corrupt ? 2000000000LL : 10000000000LL;
	if (s->payload < 8 || s->payload % 8 || s->producers == 0 || s->items == 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "queue: payload must be a positive multiple of 8, producers and items positive");
		return -1;
	}
	if (c->ns_per_cycle == 0 && measure_clock(c, err))
		return -1;
	queue_mem m;
	efx_ring host, dev;
	if (queue_rings(c, &m, s, &host, &dev, err))
		return -1;
	uint64_t n = s->items > s->warmup ? s->items : s->warmup;
	CU(cudaMalloc(&m.lat, n * sizeof *m.lat));
	CU(cudaMalloc(&m.fail, sizeof *m.fail));
	CU(cudaMemset(m.fail, 0, sizeof *m.fail));
	m.seen = (uint8_t *)calloc(s->warmup + s->items, 1);
	consumer a = {host, s->warmup + s->items, m.seen, timeout_ns, s->core, 0, ""};
	pthread_t th;
	if (pthread_create(&th, NULL, consume, &a) != 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "queue: start the consumer thread");
		return -1;
	}
	cudaEvent_t e0, e1;
	int rc = cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess ? -1 : 0;
	if (rc == 0 && s->warmup)
		rc = launch_producers(c, &m, &dev, s, 0, s->warmup, timeout_ns, err);
	if (rc == 0 && cudaEventRecord(e0, c->stream) != cudaSuccess)
		rc = -1;
	if (rc == 0)
		rc = launch_producers(c, &m, &dev, s, s->warmup, s->items, timeout_ns, err);
	if (rc == 0 && (cudaEventRecord(e1, c->stream) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess))
		rc = -1;
	pthread_join(th, NULL);
	float ms = 0;
	if (rc == 0)
		cudaEventElapsedTime(&ms, e0, e1);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	if (rc != 0) {
		if (err[0] == 0)
			CU(cudaGetLastError());
		return -1;
	}
	unsigned long long fail;
	CU(cudaMemcpy(&fail, m.fail, sizeof fail, cudaMemcpyDeviceToHost));
	if (a.rc != 0 || fail) {
		snprintf(err, EFX_CUDA_ERRLEN, "%s%sproducer wait %s", a.rc ? a.err : "", a.rc ? "; " : "",
			 fail == 0 ? "ok" : fail == 1 ? "for room timed out" : "for completion timed out");
		return -1;
	}
	CU(cudaMemcpy(lat, m.lat, s->items * sizeof *lat, cudaMemcpyDeviceToHost));
	for (uint64_t i = 0; i < s->items; i++)
		lat[i] = (uint64_t)(lat[i] * c->ns_per_cycle);
	t->elapsed_ns = (uint64_t)(ms * 1e6);
	t->iterations = s->items;
	return 0;
}

/* ---- proxy ------------------------------------------------------------ */

#define PROXY_CAPACITY 64

struct proxy_state {
	int kind;           /* EFX_CELLS_* of the cells */
	uint8_t *cells;     /* pinned or managed */
	uint64_t *ctl;      /* pinned: tail, completed */
	uint64_t *head;     /* device */
	efx_ring dev;       /* the GPU's view */
	uint64_t *off;      /* device copies of the stamp list */
	uint32_t *key;
	uint8_t *width;
	uint32_t cap;       /* entries the stamp arrays hold */
	unsigned long long *lat, *fail;
	uint64_t nlat;
	uint64_t n;
	cudaEvent_t e0, e1;
};

static void free_proxy(efx_cuda *c)
{
	proxy_state *p = c->proxy;
	if (!p)
		return;
	if (p->kind == EFX_CELLS_MANAGED)
		cudaFree(p->cells);
	else
		cudaFreeHost(p->cells);
	cudaFreeHost(p->ctl);
	cudaFree(p->head);
	cudaFree(p->off);
	cudaFree(p->key);
	cudaFree(p->width);
	cudaFree(p->lat);
	cudaFree(p->fail);
	cudaEventDestroy(p->e0);
	cudaEventDestroy(p->e1);
	free(p);
	c->proxy = NULL;
}

extern "C" int efx_cuda_host_register(efx_cuda *c, void *ptr, uint64_t len, char *err)
{
	CU(cudaHostRegister(ptr, len, cudaHostRegisterMapped | cudaHostRegisterPortable));
	return 0;
}

/* proxy_cells gives the ring cells of the kind asked, reallocating when the kind changes. */
static int proxy_cells(proxy_state *p, int kind, uint64_t bytes, char *err)
{
	if (p->cells && p->kind == kind)
		return 0;
	if (p->cells && p->kind == EFX_CELLS_MANAGED)
		cudaFree(p->cells);
	else if (p->cells)
		cudaFreeHost(p->cells);
	p->cells = NULL;
	switch (kind) {
	case EFX_CELLS_PINNED:
		CU(cudaHostAlloc(&p->cells, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
		break;
	case EFX_CELLS_MANAGED:
		CU(cudaMallocManaged(&p->cells, bytes));
		break;
	default:
		snprintf(err, EFX_CUDA_ERRLEN, "proxy: ring cells in device memory need GDRCopy, and /dev/gdrdrv is absent");
		return -1;
	}
	p->kind = kind;
	return 0;
}

extern "C" int efx_cuda_proxy_ring(efx_cuda *c, int cells, efx_ring *host, char *err)
{
	const uint64_t stride = 16; /* 8-byte header, 8-byte command: the iteration */
	if (!c->proxy) {
		proxy_state *p = (proxy_state *)calloc(1, sizeof *p);
		c->proxy = p;
		CU(cudaHostAlloc(&p->ctl, 256, cudaHostAllocMapped | cudaHostAllocPortable));
		CU(cudaMalloc(&p->head, sizeof *p->head));
		CU(cudaMalloc(&p->fail, sizeof *p->fail));
		CU(cudaEventCreate(&p->e0));
		CU(cudaEventCreate(&p->e1));
		if (c->ns_per_cycle == 0 && measure_clock(c, err))
			return -1;
	}
	proxy_state *p = c->proxy;
	if (proxy_cells(p, cells, PROXY_CAPACITY * stride, err))
		return -1;
	memset(p->cells, 0, PROXY_CAPACITY * stride);
	memset(p->ctl, 0, 256);
	CU(cudaMemset(p->head, 0, sizeof *p->head));
	*host = efx_ring{p->cells, PROXY_CAPACITY, stride, 8, NULL, p->ctl, p->ctl + 16};
	p->dev = *host;
	p->dev.head = p->head;
	if (cells == EFX_CELLS_PINNED)
		CU(cudaHostGetDevicePointer((void **)&p->dev.cells, p->cells, 0));
	CU(cudaHostGetDevicePointer((void **)&p->dev.tail, p->ctl, 0));
	p->dev.completed = p->dev.tail + 16;
	return 0;
}

/* proxy_kernel is one block: each iteration its threads write the stamps
 * into the iteration's slot and fence them out to the host, then thread 0
 * pushes the command; a blocking run waits for its completion. A wait past
 * timeout cycles sets *fail and ends the kernel. */
__global__ void proxy_kernel(efx_ring r, uint8_t *src, uint64_t stride, uint32_t slots, const uint64_t *off,
			     const uint32_t *key, const uint8_t *width, uint32_t nst, uint64_t seed, int sender,
			     uint64_t first, uint64_t n, int blocking, uint64_t timeout, unsigned long long *lat,
			     unsigned long long *fail)
{
	__shared__ int stop;
	uint64_t tail_seen = 0;
	for (uint64_t j = 0; j < n; j++) {
		uint64_t it = first + j, t0 = clock64();
		if (threadIdx.x == 0) {
			stop = 0;
			while (it >= slots && efx_load(r.completed) < it - slots + 1) /* the slot's last writes are done */
				if (clock64() - t0 > timeout) {
					atomicExch(fail, 1ULL);
					stop = 1;
					break;
				}
		}
		__syncthreads();
		if (stop)
			return;
		uint8_t *slot = src + (it % slots) * stride;
		for (uint32_t i = threadIdx.x; i < nst; i += blockDim.x) {
			uint64_t v = efx_stamp_value(seed ^ it, key[i] >> 8, (int)(key[i] & 0xff), sender);
			uint8_t *at = slot + off[i];
			if (width[i] == 8 && ((uintptr_t)at & 7) == 0)
				*(volatile uint64_t *)at = v;
			else
				for (int b = 0; b < width[i]; b++)
					((volatile uint8_t *)at)[b] = (uint8_t)(v >> (8 * b));
		}
		__threadfence_system(); /* the stamps reach the host before the command can */
		__syncthreads();
		if (threadIdx.x == 0) {
			uint64_t pos = efx_ring_claim(&r);
			while (!efx_ring_room(&r, pos, &tail_seen))
				if (clock64() - t0 > timeout) {
					atomicExch(fail, 2ULL);
					stop = 1;
					break;
				}
			if (!stop) {
				efx_ring_put(&r, pos, it);
				while (blocking && !efx_ring_done(&r, pos))
					if (clock64() - t0 > timeout) {
						atomicExch(fail, 3ULL);
						stop = 1;
						break;
					}
				lat[j] = clock64() - t0;
			}
		}
		__syncthreads();
		if (stop)
			return;
	}
	uint64_t t0 = clock64();
	if (threadIdx.x == 0) /* NBI: one quiet at the end */
		while (n && !efx_ring_done(&r, first + n - 1))
			if (clock64() - t0 > timeout) {
				atomicExch(fail, 4ULL);
				return;
			}
}

/* stamp_arrays copies the stamp list to the device, growing the arrays when needed. */
static int stamp_arrays(proxy_state *p, const efx_cuda_proxy_spec *s, char *err)
{
	if (s->nstamps > p->cap) {
		cudaFree(p->off);
		cudaFree(p->key);
		cudaFree(p->width);
		CU(cudaMalloc(&p->off, s->nstamps * sizeof *p->off));
		CU(cudaMalloc(&p->key, s->nstamps * sizeof *p->key));
		CU(cudaMalloc(&p->width, s->nstamps * sizeof *p->width));
		p->cap = s->nstamps;
	}
	CU(cudaMemcpy(p->off, s->stamp_off, s->nstamps * sizeof *p->off, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(p->key, s->stamp_key, s->nstamps * sizeof *p->key, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(p->width, s->stamp_width, s->nstamps * sizeof *p->width, cudaMemcpyHostToDevice));
	return 0;
}

extern "C" int efx_cuda_proxy_launch(efx_cuda *c, const efx_cuda_proxy_spec *s, char *err)
{
	proxy_state *p = c->proxy;
	if (!p) {
		snprintf(err, EFX_CUDA_ERRLEN, "proxy: no ring: call efx_cuda_proxy_ring first");
		return -1;
	}
	if (stamp_arrays(p, s, err))
		return -1;
	if (s->n > p->nlat) {
		cudaFree(p->lat);
		CU(cudaMalloc(&p->lat, s->n * sizeof *p->lat));
		p->nlat = s->n;
	}
	uint8_t *src;
	CU(cudaHostGetDevicePointer((void **)&src, s->src, 0));
	CU(cudaMemset(p->fail, 0, sizeof *p->fail));
	p->n = s->n;
	CU(cudaEventRecord(p->e0, c->stream));
	proxy_kernel<<<1, 256, 0, c->stream>>>(p->dev, src, s->stride, s->slots, p->off, p->key, p->width, s->nstamps,
					       s->seed, s->sender, s->first, s->n, s->blocking,
					       (uint64_t)(s->timeout_ns / c->ns_per_cycle), p->lat, p->fail);
	LAUNCHED("proxy_kernel");
	CU(cudaEventRecord(p->e1, c->stream));
	return 0;
}

extern "C" int efx_cuda_proxy_wait(efx_cuda *c, uint64_t *lat, efx_cuda_timing *t, char *err)
{
	proxy_state *p = c->proxy;
	unsigned long long fail;
	float ms;
	CU(cudaEventSynchronize(p->e1));
	CU(cudaGetLastError());
	CU(cudaMemcpy(&fail, p->fail, sizeof fail, cudaMemcpyDeviceToHost));
	if (fail) {
		static const char *why[] = {"", "a source slot to be free", "room in the ring", "a command's completion",
					    "the last command's completion"};
		snprintf(err, EFX_CUDA_ERRLEN, "proxy: the GPU timed out waiting for %s", why[fail < 5 ? fail : 0]);
		return -1;
	}
	CU(cudaEventElapsedTime(&ms, p->e0, p->e1));
	CU(cudaMemcpy(lat, p->lat, p->n * sizeof *lat, cudaMemcpyDeviceToHost));
	for (uint64_t i = 0; i < p->n; i++)
		lat[i] = (uint64_t)(lat[i] * c->ns_per_cycle);
	t->elapsed_ns = (uint64_t)(ms * 1e6);
	t->iterations = p->n;
	return 0;
}
