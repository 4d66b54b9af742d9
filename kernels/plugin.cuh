/*
 * plugin.cuh: what the units of libefaxx_cuda.so share. Not part of its C
 * interface (that is efaxx_cuda.h): the checked-call macros, the device
 * context, the payload pattern on the GPU, the SM clock, and the memory of
 * a command ring (cells, control words, claim counter), which the queue
 * and proxy benchmarks both use.
 *
 * One unit per benchmark: device.cu (open, close, clock), ring.cu (ring
 * memory), ipc.cu, ipc_all2all.cu, queue.cu, proxy.cu, and hmem.cu
 * (network buffers in GPU memory).
 */
#ifndef EFX_PLUGIN_CUH
#define EFX_PLUGIN_CUH

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "efaxx_cuda.h"
#include "pattern.h"
#include "ring.h"

/* CU runs a CUDA call in a function that has char *err and returns int:
 * a failure names the call, where it is, and CUDA's message. */
#define CU(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			snprintf(err, EFX_CUDA_ERRLEN, "%s:%d: %s: %s", __FILE__, __LINE__, #call, \
				 cudaGetErrorString(e_));                                          \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/* CUDRV is CU for a call of the driver API (stream memory operations). */
#define CUDRV(call)                                                                                \
	do {                                                                                       \
		CUresult r_ = (call);                                                              \
		if (r_ != CUDA_SUCCESS) {                                                          \
			const char *m_ = "unknown error";                                          \
			cuGetErrorString(r_, &m_);                                                 \
			snprintf(err, EFX_CUDA_ERRLEN, "%s:%d: %s: %s", __FILE__, __LINE__, #call, m_); \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/* LAUNCHED checks a kernel launch: configuration errors show at once, faults at the next sync. */
#define LAUNCHED(name) CU(cudaGetLastError())

/* efx_nomem fails a host allocation of what. */
static inline int efx_nomem(char *err, const char *what)
{
	snprintf(err, EFX_CUDA_ERRLEN, "%s: out of host memory", what);
	return -1;
}

/* A rank's GPU. Each benchmark keeps its own state behind a pointer,
 * allocated by its first call and freed by efx_cuda_close. */
struct efx_cuda {
	int device, sms;
	cudaStream_t stream;
	double ns_per_cycle;     /* SM clock, measured once: per-command times are taken in cycles */
	unsigned long long *bad; /* device scratch of the checks: [0] wrong words, [1] first wrong word */
	struct ipc_state *ipc;
	struct a2a_state *a2a;
	struct proxy_state *proxy;
	struct hmem_state *hmem;
};

/* device.cu */
int efx_clock(efx_cuda *c, char *err); /* measures ns_per_cycle, once */

/* the benchmarks' state, freed by efx_cuda_close */
void efx_ipc_free(efx_cuda *c);
void efx_a2a_free(efx_cuda *c);
void efx_proxy_free(efx_cuda *c);
void efx_hmem_free(efx_cuda *c);

/* The memory of a command ring: cells where kind says, tail and completed
 * in pinned host memory (on separate 128-byte lines), the producers' claim
 * counter in device memory. Opening it again reuses what fits and empties
 * it. */
struct ring_mem {
	int kind;       /* EFX_CELLS_* of cells; -1 before the first open */
	uint8_t *cells; /* pinned or managed */
	uint64_t bytes;
	uint64_t *ctl;  /* pinned: tail at ctl[0], completed at ctl[16] */
	uint64_t *head; /* device */
};
#define RING_MEM_NONE {-1, NULL, 0, NULL, NULL}

/* ring.cu: host gets the CPU's view, dev the GPU's. */
int efx_ring_mem_open(efx_cuda *c, ring_mem *m, int kind, uint64_t capacity, uint32_t payload, efx_ring *host,
		      efx_ring *dev, char *err);
void efx_ring_mem_free(ring_mem *m);

/* The payload pattern on the GPU (matches native/pattern.c): 16-byte word
 * i of rank's base pattern, and the key that iteration k XORs into it. */
static __device__ __forceinline__ uint4 efx_base_vec(uint64_t i, int rank)
{
	uint64_t a = efx_base_word(2 * i, rank), b = efx_base_word(2 * i + 1, rank);
	return make_uint4((uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32));
}

static inline uint4 efx_key_of(uint64_t k)
{
	uint64_t a = efx_mix64(k), b = efx_mix64(~k);
	return make_uint4((uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32));
}

static __device__ __forceinline__ uint4 efx_xor4(uint4 a, uint4 k)
{
	return make_uint4(a.x ^ k.x, a.y ^ k.y, a.z ^ k.z, a.w ^ k.w);
}

/* ipc.cu's kernels, which ipc_all2all.cu launches too: rank's base
 * pattern into p; the measured copy (dst = src XOR key, 16-byte words,
 * grid-stride); a check of p against rank's base XOR key, counting wrong
 * words into bad[0] and the first into bad[1]; one byte flipped (the
 * test hook). */
__global__ void efx_fill_base(uint4 *p, uint64_t n, int rank);
__global__ void efx_copy_xor(uint4 *__restrict__ dst, const uint4 *__restrict__ src, uint64_t n, uint4 key);
__global__ void efx_check_xor(const uint4 *p, uint64_t n, int rank, uint4 key, unsigned long long *bad);
__global__ void efx_flip_byte(uint8_t *p);

#endif
