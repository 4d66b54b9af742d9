// probe.cu: design probe for the CUDA plugin, kept so the choices in
// the plugin (kernels/*.cu) can be re-checked on a new GPU. Not part of efaxx.
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o probe probe.cu && ./probe
//
// 1. NVLink copy: kernel variants against cudaMemcpyAsync, GPU 0 -> GPU 1.
// 2. GPU -> CPU -> GPU round trip and push cost through pinned memory, with
//    and without system-scope release/acquire, with and without the claim atomic.
// 3. Copy engines and SMs together on one buffer.
// What it showed on an H200 pair (2026-11-22): every SM copy (strided, warp
// tiles, .cg stores, TMA bulk) tops out at 370-375 GB/s over NVLink, the copy
// engines at 396, and mixing the two does not beat the engines alone; a
// release store to pinned memory costs 1.4 us, a relaxed one 95 ns.
// 4. Push + pull: GPU 0's SMs write part of the buffer while GPU 1's SMs
//    read the rest (and the same with copy engines on both sides).
// What it showed (same pair, later that day): push 369, pull 373, push+pull
// at any split 371-375 GB/s; copy engine 396, two copy engines 394. The
// ceiling for SM-driven NVLink traffic here is about 375 GB/s, 0.95 of the
// copy engines, however the work is split between the two GPUs.
#include <cuda_runtime.h>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <thread>
#include <vector>
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void v_strided4(uint4 *__restrict__ dst, const uint4 *__restrict__ src, uint64_t n)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x, i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
		dst[i] = a; dst[i + stride] = b; dst[i + 2 * stride] = c; dst[i + 3 * stride] = d;
	}
	for (; i < n; i += stride) dst[i] = src[i];
}

// warp tiles: each warp copies K*32 contiguous uint4 per step.
template <int K, bool CG>
__global__ void v_tile(uint4 *__restrict__ dst, const uint4 *__restrict__ src, uint64_t n)
{
	int lane = threadIdx.x & 31;
	uint64_t warp = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) >> 5, warps = ((uint64_t)gridDim.x * blockDim.x) >> 5;
	for (uint64_t t = warp; (t + 1) * K * 32 <= n; t += warps) {
		uint4 v[K];
		const uint4 *s = src + t * K * 32 + lane;
#pragma unroll
		for (int k = 0; k < K; k++) v[k] = __ldg(s + k * 32);
		uint4 *d = dst + t * K * 32 + lane;
#pragma unroll
		for (int k = 0; k < K; k++) { if (CG) __stcg(d + k * 32, v[k]); else d[k * 32] = v[k]; }
	}
}

#if __CUDACC_VER_MAJOR__ >= 12
// TMA: bulk copy global -> shared -> global (peer), two buffers per block.
__global__ void v_tma(uint8_t *dst, const uint8_t *src, uint64_t bytes, uint32_t chunk)
{
	extern __shared__ __align__(128) uint8_t smem[];
	__shared__ __align__(8) uint64_t bar[2];
	if (threadIdx.x != 0) return;
	uint32_t b0 = (uint32_t)__cvta_generic_to_shared(&bar[0]), b1 = (uint32_t)__cvta_generic_to_shared(&bar[1]);
	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b0));
	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b1));
	asm volatile("fence.mbarrier_init.release.cluster;");
	uint32_t phase[2] = {0, 0};
	uint64_t n = bytes / chunk;
	for (uint64_t c = blockIdx.x, k = 0; c < n; c += gridDim.x, k++) {
		int b = k & 1;
		uint32_t bar_b = b ? b1 : b0;
		uint32_t s = (uint32_t)__cvta_generic_to_shared(smem + b * chunk);
		asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_b), "r"(chunk));
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
			     ::"r"(s), "l"(src + c * chunk), "r"(chunk), "r"(bar_b) : "memory");
		uint32_t done = 0;
		while (!done)
			asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
				     : "=r"(done) : "r"(bar_b), "r"(phase[b]) : "memory");
		phase[b] ^= 1;
		asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * chunk), "r"(s), "r"(chunk) : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
	}
	asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
#endif

static float time_it(cudaStream_t st, int iters, const std::function<void()> &f)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
	for (int i = 0; i < 3; i++) f();
	CK(cudaEventRecord(a, st));
	for (int i = 0; i < iters; i++) f();
	CK(cudaEventRecord(b, st));
	CK(cudaEventSynchronize(b));
	CK(cudaGetLastError());
	float ms; CK(cudaEventElapsedTime(&ms, a, b));
	return ms / iters;
}

static void copy_probe()
{
	int n; CK(cudaGetDeviceCount(&n));
	if (n < 2) { printf("copy: one GPU only\n"); return; }
	CK(cudaSetDevice(1)); uint4 *dst; CK(cudaMalloc(&dst, 1ULL << 30));
	CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
	uint4 *src; CK(cudaMalloc(&src, 1ULL << 30)); CK(cudaMemset(src, 1, 1ULL << 30));
	cudaStream_t st; CK(cudaStreamCreate(&st));
	int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	for (uint64_t bytes : {16ULL << 20, 256ULL << 20, 1ULL << 30}) {
		uint64_t n16 = bytes / 16;
		int it = bytes >= (1ULL << 30) ? 50 : 200;
		auto gbs = [&](float ms) { return bytes / (ms * 1e6); };
		printf("copy %4llu MiB: memcpy %.1f GB/s\n", (unsigned long long)(bytes >> 20),
		       gbs(time_it(st, it, [&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st); })));
		for (int blocks_per_sm : {1, 2, 4}) for (int bs : {256, 512, 1024}) {
			int g = sms * blocks_per_sm;
			if (bs * blocks_per_sm > 2048) continue;
			float a = time_it(st, it, [&] { v_strided4<<<g, bs, 0, st>>>(dst, src, n16); });
			float b = time_it(st, it, [&] { v_tile<8, false><<<g, bs, 0, st>>>(dst, src, n16); });
			float c = time_it(st, it, [&] { v_tile<8, true><<<g, bs, 0, st>>>(dst, src, n16); });
			float d = time_it(st, it, [&] { v_tile<16, false><<<g, bs, 0, st>>>(dst, src, n16); });
			printf("  %4dx%-4d strided4 %.1f tile8 %.1f tile8cg %.1f tile16 %.1f\n", g, bs, gbs(a), gbs(b), gbs(c), gbs(d));
		}
#if __CUDACC_VER_MAJOR__ >= 12
		for (uint32_t chunk : {16384u, 32768u, 65536u}) {
			CK(cudaFuncSetAttribute(v_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * chunk));
			for (int per : {1, 2, 4, 8}) {
				if (2 * chunk * per > 200000) continue;
				float t = time_it(st, it, [&] { v_tma<<<sms * per, 32, 2 * chunk, st>>>((uint8_t *)dst, (uint8_t *)src, bytes, chunk); });
				printf("  tma chunk %6u x %d/SM: %.1f\n", chunk, per, gbs(t));
			}
		}
#endif
	}
}

// queue probe: one producer thread, a CPU thread answering.
__device__ __forceinline__ void st_rel(volatile uint64_t *p, uint64_t v) { asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory"); }
__device__ __forceinline__ void st_rlx(volatile uint64_t *p, uint64_t v) { asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory"); }
__device__ __forceinline__ uint64_t ld_acq(volatile uint64_t *p) { uint64_t v; asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ uint64_t ld_rlx(volatile uint64_t *p) { uint64_t v; asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }

// mode bits: 1 release store, 2 acquire poll, 4 claim atomic, 8 wait for answer
__global__ void ping(volatile uint64_t *flag, volatile uint64_t *answer, uint64_t *head, int n, int mode, uint64_t *cycles)
{
	for (int i = 1; i <= n; i++) {
		uint64_t t0 = clock64();
		if (mode & 4) atomicAdd((unsigned long long *)head, 1ULL);
		flag[1] = i; // a payload word
		if (mode & 1) st_rel(flag, i); else st_rlx(flag, i);
		uint64_t t1 = clock64();
		if (mode & 8) { if (mode & 2) while (ld_acq(answer) < (uint64_t)i); else while (ld_rlx(answer) < (uint64_t)i); }
		cycles[2 * (i - 1)] = t1 - t0;
		cycles[2 * (i - 1) + 1] = clock64() - t0;
	}
}

static void queue_probe()
{
	CK(cudaSetDevice(0));
	uint64_t *flag, *answer, *head, *cyc; int n = 20000;
	CK(cudaHostAlloc(&flag, 256, cudaHostAllocMapped)); CK(cudaHostAlloc(&answer, 256, cudaHostAllocMapped));
	CK(cudaMalloc(&head, 8)); CK(cudaMalloc(&cyc, 2 * n * 8));
	int khz; CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	std::vector<uint64_t> h(2 * n);
	for (int mode : {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 15}) {
		memset(flag, 0, 256); memset(answer, 0, 256);
		std::atomic<bool> stop{false};
		std::thread cpu([&] { uint64_t seen = 0; while (!stop.load(std::memory_order_relaxed)) { uint64_t v = __atomic_load_n(flag, __ATOMIC_ACQUIRE); if (v != seen) { seen = v; __atomic_store_n(answer, v, __ATOMIC_RELEASE); } } });
		ping<<<1, 1>>>(flag, answer, head, n, mode, cyc);
		CK(cudaDeviceSynchronize());
		stop = true; cpu.join();
		CK(cudaMemcpy(h.data(), cyc, 2 * n * 8, cudaMemcpyDeviceToHost));
		std::vector<uint64_t> push(n), rt(n);
		for (int i = 0; i < n; i++) { push[i] = h[2 * i]; rt[i] = h[2 * i + 1]; }
		std::sort(push.begin(), push.end()); std::sort(rt.begin(), rt.end());
		double ns = 1e6 / khz;
		printf("queue mode %2d (%s%s%s%s): push p50 %.0f ns, total p50 %.0f ns p99 %.0f ns\n", mode, mode & 1 ? "rel " : "rlx ", mode & 2 ? "acq " : "rlxpoll ",
		       mode & 4 ? "claim " : "", mode & 8 ? "wait" : "nowait", push[n / 2] * ns, rt[n / 2] * ns, rt[n * 99 / 100] * ns);
	}
}

// hybrid: the copy engines move one share of the buffer while SMs move the
// rest, concurrently, on two streams; and push + pull from both GPUs.
static void hybrid_probe()
{
	CK(cudaSetDevice(1)); uint4 *dst1, *src1; CK(cudaMalloc(&dst1, 1ULL << 30)); CK(cudaMalloc(&src1, 1ULL << 30));
	cudaStream_t s1; CK(cudaStreamCreate(&s1));
	CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
	uint4 *src; CK(cudaMalloc(&src, 1ULL << 30)); CK(cudaMemset(src, 1, 1ULL << 30));
	cudaStream_t a, b; CK(cudaStreamCreate(&a)); CK(cudaStreamCreate(&b));
	cudaEvent_t e0, e1, eb; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&eb));
	int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	uint64_t bytes = 1ULL << 30;
	for (double ce : {1.0, 0.9, 0.8, 0.7, 0.6, 0.5}) {
		for (int g : {sms / 4, sms / 2, sms}) {
			uint64_t cb = ((uint64_t)(bytes * ce)) & ~4095ULL, kb = bytes - cb;
			float best = 1e9;
			for (int rep = 0; rep < 6; rep++) {
				CK(cudaEventRecord(e0, a));
				CK(cudaStreamWaitEvent(b, e0, 0));
				if (cb) CK(cudaMemcpyAsync(dst1, src, cb, cudaMemcpyDeviceToDevice, a));
				if (kb) v_strided4<<<g, 512, 0, b>>>(dst1 + cb / 16, src + cb / 16, kb / 16);
				CK(cudaEventRecord(eb, b));
				CK(cudaStreamWaitEvent(a, eb, 0));
				CK(cudaEventRecord(e1, a));
				CK(cudaEventSynchronize(e1));
				float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
				if (rep > 0) best = std::min(best, ms);
			}
			printf("hybrid ce %.1f grid %3d: %.1f GB/s\n", ce, g, bytes / (best * 1e6));
			if (ce == 1.0) break;
		}
	}
}

// push + pull: GPU 0's SMs write one share of the buffer into GPU 1 while
// GPU 1's SMs read the rest from GPU 0; both move data from 0 to 1, through
// different engines (0's stores, 1's loads and 0's read responses).
static void pushpull_probe()
{
	uint64_t bytes = 1ULL << 30;
	CK(cudaSetDevice(1)); CK(cudaDeviceEnablePeerAccess(0, 0));
	uint4 *dst1; CK(cudaMalloc(&dst1, bytes));
	cudaStream_t b; CK(cudaStreamCreate(&b));
	CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
	uint4 *src; CK(cudaMalloc(&src, bytes)); CK(cudaMemset(src, 1, bytes));
	cudaStream_t a; CK(cudaStreamCreate(&a));
	cudaEvent_t e0, e1, eb; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
	CK(cudaSetDevice(1)); CK(cudaEventCreate(&eb)); CK(cudaSetDevice(0));
	int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	for (int ce = 0; ce < 2; ce++)
	for (double push : {1.0, 0.0, 0.8, 0.7, 0.6, 0.5, 0.4}) {
		if (ce && push == 0.0) continue;
		for (int g : {sms, 2 * sms}) {
			uint64_t pb = ((uint64_t)(bytes * push)) & ~4095ULL, qb = bytes - pb;
			float best = 1e9;
			for (int rep = 0; rep < 6; rep++) {
				CK(cudaSetDevice(0));
				CK(cudaEventRecord(e0, a));
				if (pb) {
					if (ce) CK(cudaMemcpyAsync(dst1, src, pb, cudaMemcpyDeviceToDevice, a));
					else v_strided4<<<g, 512, 0, a>>>(dst1, src, pb / 16);
				}
				CK(cudaSetDevice(1));
				CK(cudaStreamWaitEvent(b, e0, 0));
				if (qb) v_strided4<<<g, 512, 0, b>>>(dst1 + pb / 16, src + pb / 16, qb / 16);
				CK(cudaEventRecord(eb, b));
				CK(cudaSetDevice(0));
				CK(cudaStreamWaitEvent(a, eb, 0));
				CK(cudaEventRecord(e1, a));
				CK(cudaEventSynchronize(e1));
				CK(cudaGetLastError());
				float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
				if (rep > 0) best = std::min(best, ms);
			}
			printf("pushpull %s %.1f grid %3d: %.1f GB/s\n", ce ? "ce-push" : "sm-push", push, g, bytes / (best * 1e6));
			if (push == 1.0 && ce) break;
		}
	}
	// two copy engines: GPU 0's pushes one half, GPU 1's pulls the other
	for (double push : {0.5, 0.6}) {
		uint64_t pb = ((uint64_t)(bytes * push)) & ~4095ULL, qb = bytes - pb;
		float best = 1e9;
		for (int rep = 0; rep < 6; rep++) {
			CK(cudaSetDevice(0)); CK(cudaEventRecord(e0, a));
			CK(cudaMemcpyAsync(dst1, src, pb, cudaMemcpyDeviceToDevice, a));
			CK(cudaSetDevice(1)); CK(cudaStreamWaitEvent(b, e0, 0));
			CK(cudaMemcpyAsync(dst1 + pb / 16, src + pb / 16, qb, cudaMemcpyDeviceToDevice, b));
			CK(cudaEventRecord(eb, b));
			CK(cudaSetDevice(0)); CK(cudaStreamWaitEvent(a, eb, 0)); CK(cudaEventRecord(e1, a)); CK(cudaEventSynchronize(e1));
			float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
			if (rep > 0) best = std::min(best, ms);
		}
		printf("pushpull two CEs %.1f: %.1f GB/s\n", push, bytes / (best * 1e6));
	}
}

int main(int argc, char **argv)
{
	std::string only = argc > 1 ? argv[1] : "";
	if (only == "" || only == "copy")
		copy_probe();
	if (only == "" || only == "queue")
		queue_probe();
	if (only == "" || only == "hybrid")
		hybrid_probe();
	if (only == "" || only == "pushpull")
		pushpull_probe();
	return 0;
}
