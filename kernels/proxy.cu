/*
 * proxy.cu: the GPU's side of GPU-initiated writes through a CPU proxy
 * (native/proxy.c is the CPU's). One block writes each iteration's stamps
 * into a source slot of host memory, fences them out, and pushes one
 * command into a ring that the caller's CPU thread serves.
 */
#include "plugin.cuh"

#define PROXY_CAPACITY 64

struct proxy_state {
	ring_mem ring;
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

void efx_proxy_free(efx_cuda *c)
{
	proxy_state *p = c->proxy;
	if (!p)
		return;
	efx_ring_mem_free(&p->ring);
	cudaFree(p->off);
	cudaFree(p->key);
	cudaFree(p->width);
	cudaFree(p->lat);
	cudaFree(p->fail);
	if (p->e0)
		cudaEventDestroy(p->e0);
	if (p->e1)
		cudaEventDestroy(p->e1);
	free(p);
	c->proxy = NULL;
}

/* state returns the proxy's state, made on the first call. */
static proxy_state *state(efx_cuda *c, char *err)
{
	if (c->proxy)
		return c->proxy;
	proxy_state *p = (proxy_state *)calloc(1, sizeof *p);
	if (!p) {
		efx_nomem(err, "proxy");
		return NULL;
	}
	p->ring = RING_MEM_NONE;
	c->proxy = p;
	cudaError_t e = cudaMalloc(&p->fail, sizeof *p->fail);
	if (e == cudaSuccess)
		e = cudaEventCreate(&p->e0);
	if (e == cudaSuccess)
		e = cudaEventCreate(&p->e1);
	if (e != cudaSuccess) {
		snprintf(err, EFX_CUDA_ERRLEN, "proxy: allocate its state: %s", cudaGetErrorString(e));
		return NULL;
	}
	return efx_clock(c, err) ? NULL : p;
}

extern "C" int efx_cuda_proxy_ring(efx_cuda *c, int cells, efx_ring *host, char *err)
{
	proxy_state *p = state(c, err);
	if (!p)
		return -1;
	/* 8-byte header, 8-byte command: the iteration */
	return efx_ring_mem_open(c, &p->ring, cells, PROXY_CAPACITY, 8, host, &p->dev, err);
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
	__threadfence_system(); /* the last command goes out before the quiet (kernels/queue.cu) */
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
		p->off = NULL;
		p->key = NULL;
		p->width = NULL;
		p->cap = 0;
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
	if (!p || !p->ring.cells) {
		snprintf(err, EFX_CUDA_ERRLEN, "proxy: no ring: call efx_cuda_proxy_ring first");
		return -1;
	}
	if (stamp_arrays(p, s, err))
		return -1;
	if (s->n > p->nlat) {
		cudaFree(p->lat);
		p->lat = NULL;
		p->nlat = 0;
		CU(cudaMalloc(&p->lat, s->n * sizeof *p->lat));
		p->nlat = s->n;
	}
	uint8_t *src;
	CU(cudaHostGetDevicePointer((void **)&src, s->src, 0));
	CU(cudaMemsetAsync(p->fail, 0, sizeof *p->fail, c->stream));
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
	if (!p) {
		snprintf(err, EFX_CUDA_ERRLEN, "proxy: nothing launched");
		return -1;
	}
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
