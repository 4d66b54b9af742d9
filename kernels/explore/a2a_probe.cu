/*
 * a2a_probe.cu: how fast can a node's GPUs do an all-to-all over NVLink,
 * and does the schedule matter? One process drives every GPU (no IPC, no
 * MPI), so nothing of efaxx's ipc-all2all is in the way. Each GPU writes
 * SIZE bytes into a region for it in every other GPU:
 *
 *   at once:  every copy of every GPU starts together, a stream per copy
 *             (efaxx's ipc-all2all: all n-1 copies of a GPU at once);
 *   shifted:  n-1 steps; in step k GPU g writes into GPU (g+k) mod n, so
 *             each step is a permutation: every GPU sends one copy and
 *             receives one, both ways of its links busy (a barrier of
 *             events between steps);
 *   free:     shifted, but each GPU's copies on one stream, exchanges back
 *             to back, no barrier at all: as ranks that cannot see each
 *             other would issue them.
 *
 * each by the copy engines (cudaMemcpyPeerAsync from the writer's stream)
 * and by a copy kernel on the writer (16-byte loads and stores, the
 * writer's SMs split among its copies at once, all of them for a step).
 * Prints the aggregate: every GPU's bytes over the wall time of the
 * whole exchange (events on GPU 0 around host-side barriers), median of
 * ITERS. Not verified: a probe, not a benchmark (kernels/explore/NOTES.md).
 *
 *   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o a2a_probe a2a_probe.cu
 *   ./a2a_probe [SIZE_MIB] [ITERS] [4: the copy kernel keeps four loads in flight a thread]
 *               [SKEW_US: in free runs GPU g starts g * SKEW_US late]
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                    \
	do {                                                                                     \
		cudaError_t e_ = (x);                                                            \
		if (e_ != cudaSuccess) {                                                         \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

#define MAXG 8

__global__ void copy16(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

/* copy16x4: four 16-byte loads in flight per thread before their stores,
 * the shape of efaxx's efx_copy_xor (kernels/ipc.cu) without the XOR. */
__global__ void copy16x4(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
		dst[i] = a;
		dst[i + stride] = b;
		dst[i + 2 * stride] = c;
		dst[i + 3 * stride] = d;
	}
	for (; i < n; i += stride)
		dst[i] = src[i];
}

static bool four; /* the copy kernel: copy16x4 (argv[3] = 4), else copy16 */
static uint64_t skew_ns; /* free runs: GPU g starts g * skew_ns late (argv[4], in microseconds) */

/* spin holds its stream for ns nanoseconds of the GPU's global timer. */
__global__ void spin(uint64_t ns)
{
	uint64_t t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

static void launch_copy(int blocks, cudaStream_t s, uint4 *to, const uint4 *from, size_t n)
{
	if (four)
		copy16x4<<<blocks, 512, 0, s>>>(to, from, n);
	else
		copy16<<<blocks, 512, 0, s>>>(to, from, n);
}

static int n;
static size_t bytes;
static int sms[MAXG];
static uint4 *src[MAXG], *dst[MAXG]; /* dst[g]: n regions, region s written by GPU s */
static cudaStream_t st[MAXG][MAXG];  /* st[g][p]: GPU g's stream for its copy into p */

/* copy launches GPU g's copy into its region of GPU p on stream sp. */
static void copy(int g, int p, bool kernel, int blocks, cudaStream_t sp)
{
	CK(cudaSetDevice(g));
	uint4 *to = dst[p] + (size_t)g * (bytes / 16);
	if (kernel)
		launch_copy(blocks, sp, to, src[g], bytes / 16);
	else
		CK(cudaMemcpyPeerAsync(to, p, src[g], g, bytes, sp));
}

static void sync_all()
{
	for (int g = 0; g < n; g++) {
		CK(cudaSetDevice(g));
		CK(cudaDeviceSynchronize());
	}
}

/* The clock of a measurement: GPU 0's events around host-side barriers of
 * every GPU, so it spans all of their work. */
static cudaEvent_t clock_a, clock_b;

static void clock_start()
{
	sync_all();
	CK(cudaSetDevice(0));
	CK(cudaEventCreate(&clock_a));
	CK(cudaEventCreate(&clock_b));
	CK(cudaEventRecord(clock_a, 0));
	CK(cudaStreamSynchronize(0));
}

/* clock_stop waits for every GPU and returns the seconds since clock_start. */
static double clock_stop()
{
	sync_all();
	CK(cudaSetDevice(0));
	CK(cudaEventRecord(clock_b, 0));
	CK(cudaEventSynchronize(clock_b));
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, clock_a, clock_b));
	CK(cudaEventDestroy(clock_a));
	CK(cudaEventDestroy(clock_b));
	return ms / 1e3;
}

/* free_run runs iters shifted exchanges back to back with no barrier
 * between steps or exchanges: each GPU's copies in shifted order on one
 * stream of its own, as a rank that cannot see the others would issue
 * them. Returns the seconds of one exchange, on average. */
static double free_run(bool kernel, int iters)
{
	clock_start();
	for (int g = 1; skew_ns && g < n; g++) {
		CK(cudaSetDevice(g));
		spin<<<1, 1, 0, st[g][g]>>>(g * skew_ns);
	}
	for (int i = 0; i < iters; i++)
		for (int k = 1; k < n; k++)
			for (int g = 0; g < n; g++)
				copy(g, (g + k) % n, kernel, 4 * sms[g], st[g][g]);
	return clock_stop() / iters;
}

/* exchange runs one all-to-all and returns its seconds (host clock around device barriers). */
static double exchange(bool shifted, bool kernel)
{
	clock_start();
	if (!shifted) {
		for (int g = 0; g < n; g++)
			for (int p = 0; p < n; p++)
				if (p != g)
					copy(g, p, kernel, std::max(1, 4 * sms[g] / (n - 1)), st[g][p]);
	} else {
		for (int k = 1; k < n; k++) {
			for (int g = 0; g < n; g++)
				copy(g, (g + k) % n, kernel, 4 * sms[g], st[g][(g + k) % n]);
			sync_all();
		}
	}
	return clock_stop();
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoull(argv[1], 0, 10) : 512;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	four = argc > 3 && atoi(argv[3]) == 4;
	skew_ns = argc > 4 ? strtoull(argv[4], 0, 10) * 1000 : 0;
	bytes = mib << 20;
	CK(cudaGetDeviceCount(&n));
	if (n < 2 || n > MAXG) {
		fprintf(stderr, "a2a_probe: %d GPUs; want 2 to %d\n", n, MAXG);
		return 1;
	}
	for (int g = 0; g < n; g++) {
		CK(cudaSetDevice(g));
		cudaDeviceProp pr;
		CK(cudaGetDeviceProperties(&pr, g));
		sms[g] = pr.multiProcessorCount;
		CK(cudaMalloc(&src[g], bytes));
		CK(cudaMalloc(&dst[g], bytes * n));
		CK(cudaMemset(src[g], g + 1, bytes));
		for (int p = 0; p < n; p++) {
			CK(cudaStreamCreateWithFlags(&st[g][p], cudaStreamNonBlocking));
			if (p != g)
				CK(cudaDeviceEnablePeerAccess(p, 0));
		}
	}
	printf("%d GPUs, %zu MiB a copy, %d iterations, median, copy kernel %s; GB/s = 1e9 B/s of every GPU's copies over the exchange's time\n",
	       n, mib, iters, four ? "copy16x4" : "copy16");
	for (int kernel = 0; kernel < 2; kernel++)
		for (int shifted = 0; shifted < 2; shifted++) {
			for (int w = 0; w < 3; w++)
				exchange(shifted, kernel);
			std::vector<double> t;
			for (int i = 0; i < iters; i++)
				t.push_back(exchange(shifted, kernel));
			std::sort(t.begin(), t.end());
			double sec = t[t.size() / 2];
			printf("%-13s %-8s aggregate %8.1f GB/s (%.2f ms; fastest %8.1f)\n", kernel ? "copy kernel" : "copy engines",
			       shifted ? "shifted" : "at once", (double)bytes * n * (n - 1) / sec / 1e9, sec * 1e3,
			       (double)bytes * n * (n - 1) / t[0] / 1e9);
		}
	for (int kernel = 0; kernel < 2; kernel++) {
		free_run(kernel, 3);
		double sec = free_run(kernel, iters);
		printf("%-13s %-8s aggregate %8.1f GB/s (%.2f ms an exchange, %d back to back, no barrier, GPU g %llu us late)\n",
		       kernel ? "copy kernel" : "copy engines", "free", (double)bytes * n * (n - 1) / sec / 1e9, sec * 1e3, iters,
		       (unsigned long long)(skew_ns / 1000));
	}
	return 0;
}
