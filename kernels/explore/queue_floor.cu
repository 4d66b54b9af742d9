// queue_floor.cu: where the GPU->CPU->GPU round trip of the command ring
// goes, and what limits its NBI rate. Not part of efaxx; kept so the
// findings in docs/performance.md can be re-checked.
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I.. -o queue_floor queue_floor.cu -lpthread
//   ./queue_floor CORE
//
// Round trips, one GPU thread, pinned cells, each step adding one piece of
// the ring to a bare flag round trip (rt-*), timed on the GPU by clock64
// (converted with a clock measured beside it) and by %globaltimer:
//   rt-flag      GPU stores seq, CPU spins on it and stores done, GPU polls done
//   rt-claim     + the claim (atomicAdd on a device counter) first
//   rt-payload   + an 8-byte payload word stored before seq
//   rt-check     + the CPU checks the payload's binding and stores tail as well as done
//   rt-ring      the ring itself (ring.h: claim, put, done; efx_ring_consume)
//   rt-vec       the ring with header and payload in one 16-byte store
// Rates (NBI), P producers, 8-byte payloads:
//   nbi-ring     the ring (ring.h)
//   nbi-vec      the ring, one 16-byte store a cell
//   nbi-store    no claim, no check: thread k stores cells k, k+P, ... of a
//                buffer with room for all, the CPU waits for each seq in turn
#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "../ring.h"

#define CK(x)                                                                                     \
	do {                                                                                      \
		cudaError_t e = (x);                                                              \
		if (e != cudaSuccess) {                                                           \
			printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

static __device__ __forceinline__ uint64_t gtime()
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __device__ __forceinline__ void st_v2(volatile uint64_t *p, uint64_t a, uint64_t b)
{
	asm volatile("st.relaxed.sys.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

enum { RT_FLAG, RT_CLAIM, RT_PAYLOAD, RT_CHECK, RT_RING, RT_VEC };

// rt: one thread, n round trips; cells of 16 bytes (seq, payload).
__global__ void rt_kernel(int variant, efx_ring r, uint64_t n, unsigned long long *cyc, unsigned long long *gns)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t c0 = clock64(), g0 = gtime(), pos = i;
		volatile uint64_t *cell = (volatile uint64_t *)efx_ring_cell(&r, i);
		switch (variant) {
		case RT_FLAG:
			efx_store(cell, pos + 1);
			break;
		case RT_CLAIM:
			pos = efx_ring_claim(&r);
			efx_store(cell, pos + 1);
			break;
		case RT_PAYLOAD:
		case RT_CHECK:
			efx_store(cell + 1, i ^ efx_ring_mix(pos));
			efx_store(cell, pos + 1);
			break;
		case RT_RING:
			pos = efx_ring_claim(&r);
			efx_ring_put(&r, pos, i);
			break;
		case RT_VEC:
			pos = efx_ring_claim(&r);
			st_v2((volatile uint64_t *)efx_ring_cell(&r, pos), pos + 1, i ^ efx_ring_mix(pos));
			break;
		}
		while (efx_load(r.completed) <= pos)
			;
		cyc[i] = clock64() - c0;
		gns[i] = gtime() - g0;
	}
}

struct cpu_arg {
	int variant, core;
	efx_ring r;
	uint64_t n;
	uint8_t *seen;
	int rc;
	char err[256];
};

static void pin(int core)
{
	if (core < 0)
		return;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(core, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *rt_cpu(void *p)
{
	cpu_arg *a = (cpu_arg *)p;
	pin(a->core);
	if (a->variant >= RT_RING) {
		a->rc = efx_ring_consume(&a->r, 0, a->n, a->n, a->seen, 0, 5000000000LL, a->err, sizeof a->err);
		return NULL;
	}
	for (uint64_t t = 0; t < a->n; t++) {
		volatile uint64_t *cell = (volatile uint64_t *)efx_ring_cell(&a->r, t);
		if (a->variant == RT_CHECK) {
			uint64_t id;
			while (!efx_ring_ready(&a->r, t) || !efx_ring_check((uint8_t *)(cell + 1), 8, t, a->n, &id))
				;
			efx_ring_release(&a->r, t);
		} else {
			while (efx_load(cell) != t + 1)
				;
			efx_store(a->r.completed, t + 1);
		}
	}
	return NULL;
}

enum { NBI_RING, NBI_VEC, NBI_STORE };

__global__ void nbi_kernel(int variant, efx_ring r, uint64_t n, uint32_t producers)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= producers)
		return;
	uint64_t tail_seen = 0, last = 0;
	for (uint64_t i = k; i < n; i += producers) {
		uint64_t pos;
		if (variant == NBI_STORE) {
			pos = i;
			efx_store((volatile uint64_t *)efx_ring_cell(&r, pos), pos + 1);
		} else {
			pos = efx_ring_claim(&r);
			while (!efx_ring_room(&r, pos, &tail_seen))
				;
			if (variant == NBI_RING)
				efx_ring_put(&r, pos, i);
			else
				st_v2((volatile uint64_t *)efx_ring_cell(&r, pos), pos + 1, i ^ efx_ring_mix(pos));
		}
		last = pos + 1;
	}
	while (last && !efx_ring_done(&r, last - 1))
		;
}

static void *nbi_cpu(void *p)
{
	cpu_arg *a = (cpu_arg *)p;
	pin(a->core);
	if (a->variant != NBI_STORE) {
		a->rc = efx_ring_consume(&a->r, 0, a->n, a->n, a->seen, 0, 5000000000LL, a->err, sizeof a->err);
		return NULL;
	}
	for (uint64_t t = 0; t < a->n; t++)
		while (efx_load((volatile uint64_t *)efx_ring_cell(&a->r, t)) != t + 1)
			;
	efx_store(a->r.completed, a->n);
	efx_store(a->r.tail, a->n);
	return NULL;
}

struct mem {
	uint8_t *cells, *dcells;
	uint64_t *ctl, *dctl, *head;
};

static void ring_for(mem &m, uint64_t capacity, efx_ring *host, efx_ring *dev)
{
	memset(m.cells, 0, capacity * 16);
	memset(m.ctl, 0, 256);
	CK(cudaMemset(m.head, 0, 8));
	CK(cudaDeviceSynchronize());
	*host = efx_ring{m.cells, capacity, 16, 8, NULL, m.ctl, m.ctl + 16};
	*dev = efx_ring{m.dcells, capacity, 16, 8, m.head, m.dctl, m.dctl + 16};
}

static double ns_per_cycle(void);

__global__ void clock_rate(unsigned long long *out, uint64_t ns)
{
	uint64_t g0 = gtime(), g1, c0 = clock64();
	do
		g1 = gtime();
	while (g1 - g0 < ns);
	out[0] = clock64() - c0;
	out[1] = g1 - g0;
}

static double ns_per_cycle(void)
{
	unsigned long long *d, h[2];
	CK(cudaMalloc(&d, sizeof h));
	clock_rate<<<1, 1>>>(d, 20000000);
	CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	return (double)h[1] / h[0];
}

static uint64_t pct(std::vector<uint64_t> v, double q)
{
	std::sort(v.begin(), v.end());
	return v[(size_t)(q * (v.size() - 1))];
}

int main(int argc, char **argv)
{
	int core = argc > 1 ? atoi(argv[1]) : -1;
	const uint64_t N = 20000, W = 2000, NN = 1 << 20, CAP = 1 << 21; // CAP cells: NBI_STORE needs room for all
	mem m;
	CK(cudaHostAlloc(&m.cells, CAP * 16, cudaHostAllocMapped | cudaHostAllocPortable));
	CK(cudaHostAlloc(&m.ctl, 256, cudaHostAllocMapped | cudaHostAllocPortable));
	CK(cudaHostGetDevicePointer((void **)&m.dcells, m.cells, 0));
	CK(cudaHostGetDevicePointer((void **)&m.dctl, m.ctl, 0));
	CK(cudaMalloc(&m.head, 8));
	unsigned long long *cyc, *gns;
	CK(cudaMalloc(&cyc, (N + W) * 8));
	CK(cudaMalloc(&gns, (N + W) * 8));
	std::vector<uint8_t> seen(NN);
	double npc0 = ns_per_cycle();
	printf("clock: %.4f ns/cycle before\n", npc0);
	const char *rtname[] = {"rt-flag", "rt-claim", "rt-payload", "rt-check", "rt-ring", "rt-vec"};
	for (int pass = 0; pass < 2; pass++)
		for (int v = RT_FLAG; v <= RT_VEC; v++) {
			efx_ring host, dev;
			ring_for(m, 8192, &host, &dev);
			std::fill(seen.begin(), seen.end(), 0);
			cpu_arg a = {v, core, host, N + W, seen.data(), 0, ""};
			pthread_t th;
			pthread_create(&th, NULL, rt_cpu, &a);
			rt_kernel<<<1, 1>>>(v, dev, N + W, cyc, gns);
			CK(cudaDeviceSynchronize());
			pthread_join(th, NULL);
			std::vector<uint64_t> c(N), g(N);
			CK(cudaMemcpy(c.data(), cyc + W, N * 8, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(g.data(), gns + W, N * 8, cudaMemcpyDeviceToHost));
			double npc = ns_per_cycle();
			printf("pass %d %-10s rc=%d  p50 %7.0f ns (clock64) %7llu ns (globaltimer)  p99 %7.0f / %7llu ns  clock now %.4f ns/cycle %s\n",
			       pass, rtname[v], a.rc, pct(c, 0.5) * npc0, (unsigned long long)pct(g, 0.5), pct(c, 0.99) * npc0,
			       (unsigned long long)pct(g, 0.99), npc, a.err);
		}
	const char *nbiname[] = {"nbi-ring", "nbi-vec", "nbi-store"};
	unsigned prods[] = {1, 32, 256};
	for (int pass = 0; pass < 2; pass++)
		for (unsigned P : prods)
			for (int v = NBI_RING; v <= NBI_STORE; v++) {
				efx_ring host, dev;
				ring_for(m, v == NBI_STORE ? CAP : 8192, &host, &dev);
				std::fill(seen.begin(), seen.end(), 0);
				uint64_t n = P == 1 ? NN / 8 : NN;
				cpu_arg a = {v, core, host, n, seen.data(), 0, ""};
				pthread_t th;
				cudaEvent_t e0, e1;
				CK(cudaEventCreate(&e0));
				CK(cudaEventCreate(&e1));
				pthread_create(&th, NULL, nbi_cpu, &a);
				uint32_t block = P < 256 ? P : 256;
				CK(cudaEventRecord(e0));
				nbi_kernel<<<(P + block - 1) / block, block>>>(v, dev, n, P);
				CK(cudaEventRecord(e1));
				CK(cudaEventSynchronize(e1));
				pthread_join(th, NULL);
				float ms;
				CK(cudaEventElapsedTime(&ms, e0, e1));
				printf("pass %d %-10s producers %3u  %7.2f M commands/s  rc=%d %s\n", pass, nbiname[v], P,
				       n / (ms * 1e3), a.rc, a.err);
			}
	return 0;
}
