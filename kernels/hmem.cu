/*
 * hmem.cu: network buffers in GPU memory (memory = "device"), which the
 * provider registers through FI_HMEM. The runner cannot touch them, so
 * what native/pattern.c does to host buffers happens here, on the GPU,
 * with the same bytes: the base pattern, each iteration's stamps (from the
 * plan's stamp list, efx_stamp_list), their removal, the corruption hook,
 * and the checks, which name the first wrong byte as efx_check does. The
 * same run's references are cudaMemcpy of the same bytes, device to device
 * and staged through pinned host memory.
 */
#include "plugin.cuh"

struct hmem_state {
	uint64_t *off; /* the stamp list, on the device */
	uint32_t *key;
	uint8_t *width;
	uint32_t n, cap;
	uint64_t size;    /* the plan's size: unstamping stops there */
	uint8_t *scratch; /* a full check's copy */
	uint64_t scratch_len;
	uint8_t *ref[2];  /* the references' buffers: source on this GPU, target on ref_device */
	uint8_t *staged;  /* pinned host memory between them */
	uint64_t ref_len;
	int ref_device;
	unsigned long long *pin; /* pinned host memory: [0, 1] a check's reset values, [2, 3] its result */
};

static hmem_state *state(efx_cuda *c, char *err)
{
	if (c->hmem)
		return c->hmem;
	hmem_state *h = (hmem_state *)calloc(1, sizeof *h);
	if (!h) {
		efx_nomem(err, "device memory");
		return NULL;
	}
	/* A check's result comes back every iteration: through pinned memory
	 * its copies are one DMA each, not staged through a driver buffer. */
	cudaError_t e = cudaHostAlloc(&h->pin, 4 * sizeof *h->pin, cudaHostAllocDefault);
	if (e != cudaSuccess) {
		snprintf(err, EFX_CUDA_ERRLEN, "cudaHostAlloc of a check's result: %s", cudaGetErrorString(e));
		free(h);
		return NULL;
	}
	h->pin[0] = 0;
	h->pin[1] = ~0ULL;
	return c->hmem = h;
}

static void free_refs(hmem_state *h)
{
	cudaFree(h->ref[0]);
	cudaFree(h->ref[1]);
	cudaFreeHost(h->staged);
	h->ref[0] = h->ref[1] = h->staged = NULL;
	h->ref_len = 0;
}

void efx_hmem_free(efx_cuda *c)
{
	hmem_state *h = c->hmem;
	if (!h)
		return;
	cudaFree(h->off);
	cudaFree(h->key);
	cudaFree(h->width);
	cudaFree(h->scratch);
	free_refs(h);
	cudaFreeHost(h->pin);
	free(h);
	c->hmem = NULL;
}

/* efx_cuda_dev_alloc allocates a network buffer with SYNC_MEMOPS set: a
 * synchronous copy to or from it ends before it returns. libfabric's shm
 * (1.17) moves GPU memory with cudaMemcpy, which returns before a copy
 * between two GPU buffers has ended, and reports the op complete: on two
 * H200s a sender stamped its next iteration into a source the copy was
 * still reading, and the target found the new stamps (payload mismatches
 * at 16 MiB and 64 MiB). libfabric's efa provider sets the same attribute
 * on what it registers; shm does not. */
extern "C" int efx_cuda_dev_alloc(efx_cuda *c, uint64_t bytes, void **ptr, char *err)
{
	*ptr = NULL;
	CU(cudaMalloc(ptr, bytes));
	unsigned one = 1;
	CUDRV(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)*ptr));
	return 0;
}

extern "C" void efx_cuda_dev_free(efx_cuda *c, void *ptr) { cudaFree(ptr); }

static __device__ __forceinline__ uint8_t base_byte(uint64_t i, int sender)
{
	return (uint8_t)(efx_base_word(i / 8, sender) >> (8 * (i % 8)));
}

__global__ void dev_fill(uint8_t *buf, uint64_t len, int sender)
{
	uint64_t words = len / 8, step = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < words; w += step)
		((uint64_t *)buf)[w] = efx_base_word(w, sender);
	if (blockIdx.x == 0 && threadIdx.x == 0)
		for (uint64_t i = 8 * words; i < len; i++)
			buf[i] = base_byte(i, sender);
}

extern "C" int efx_cuda_dev_fill(efx_cuda *c, void *buf, uint64_t len, int sender, char *err)
{
	dev_fill<<<4 * c->sms, 256, 0, c->stream>>>((uint8_t *)buf, len, sender);
	LAUNCHED("dev_fill");
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

extern "C" int efx_cuda_dev_stamps(efx_cuda *c, uint32_t n, const uint64_t *off, const uint32_t *key,
				   const uint8_t *width, uint64_t size, char *err)
{
	hmem_state *h = state(c, err);
	if (!h)
		return -1;
	if (n > h->cap) {
		cudaFree(h->off);
		cudaFree(h->key);
		cudaFree(h->width);
		h->off = NULL;
		h->key = NULL;
		h->width = NULL;
		h->cap = 0;
		CU(cudaMalloc(&h->off, n * sizeof *h->off));
		CU(cudaMalloc(&h->key, n * sizeof *h->key));
		CU(cudaMalloc(&h->width, n * sizeof *h->width));
		h->cap = n;
	}
	CU(cudaMemcpy(h->off, off, n * sizeof *off, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(h->key, key, n * sizeof *key, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(h->width, width, n * sizeof *width, cudaMemcpyHostToDevice));
	h->n = n;
	h->size = size;
	return 0;
}

/* later_covers reports whether a later stamp of the same op (they follow
 * each other in the list) writes byte at: stamps of chunks under 16 bytes
 * overlap, and the last one written wins, as in native/pattern.c. */
static __device__ bool later_covers(const uint64_t *off, const uint32_t *key, const uint8_t *width, uint32_t n,
				    uint32_t j, uint64_t at)
{
	for (uint32_t l = j + 1; l < n && l <= j + 2 && key[l] >> 8 == key[j] >> 8; l++)
		if (at >= off[l] && at < off[l] + width[l])
			return true;
	return false;
}

/* dev_stamp writes stamp j of the list (unstamp: the base pattern back
 * over its 8 bytes, as efx_unstamp does, stopping at size). */
__global__ void dev_stamp(uint8_t *buf, const uint64_t *off, const uint32_t *key, const uint8_t *width, uint32_t n,
			  uint64_t seed, int sender, int unstamp, uint64_t size)
{
	for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
		if (unstamp) {
			for (uint64_t i = off[j]; i < off[j] + 8 && i < size; i++)
				buf[i] = base_byte(i, sender);
			continue;
		}
		uint64_t v = efx_stamp_value(seed, key[j] >> 8, (int)(key[j] & 0xff), sender);
		for (uint32_t b = 0; b < width[j]; b++)
			if (!later_covers(off, key, width, n, j, off[j] + b))
				buf[off[j] + b] = (uint8_t)(v >> (8 * b));
	}
}

extern "C" int efx_cuda_dev_stamp(efx_cuda *c, void *buf, uint64_t seed, int sender, int unstamp, char *err)
{
	hmem_state *h = state(c, err);
	if (!h)
		return -1;
	if (h->n == 0)
		return 0;
	dev_stamp<<<(h->n + 255) / 256, 256, 0, c->stream>>>((uint8_t *)buf, h->off, h->key, h->width, h->n, seed,
								 sender, unstamp, h->size);
	LAUNCHED("dev_stamp");
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

/* check_stamps compares each stamp's bytes (those no later stamp covers)
 * with its value; bad[0] counts wrong bytes, bad[1] is the first. */
__global__ void check_stamps(const uint8_t *buf, const uint64_t *off, const uint32_t *key, const uint8_t *width,
			     uint32_t n, uint64_t seed, int sender, unsigned long long *bad)
{
	for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
		uint64_t v = efx_stamp_value(seed, key[j] >> 8, (int)(key[j] & 0xff), sender);
		for (uint32_t b = 0; b < width[j]; b++) {
			uint64_t at = off[j] + b;
			if (!later_covers(off, key, width, n, j, at) && buf[at] != (uint8_t)(v >> (8 * b))) {
				atomicAdd(&bad[0], 1ULL);
				atomicMin(&bad[1], (unsigned long long)at);
			}
		}
	}
}

/* check_base compares every byte of buf[0, len) with the base pattern. */
__global__ void check_base(const uint8_t *buf, uint64_t len, int sender, unsigned long long *bad)
{
	uint64_t words = len / 8, step = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < words; w += step) {
		uint64_t got = ((const uint64_t *)buf)[w], want = efx_base_word(w, sender);
		if (got != want) {
			uint64_t b = 0;
			while (((got ^ want) >> (8 * b) & 0xff) == 0)
				b++;
			atomicAdd(&bad[0], 1ULL);
			atomicMin(&bad[1], (unsigned long long)(8 * w + b));
		}
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
		for (uint64_t i = 8 * words; i < len; i++)
			if (buf[i] != base_byte(i, sender)) {
				atomicAdd(&bad[0], 1ULL);
				atomicMin(&bad[1], (unsigned long long)i);
			}
}

/* expected_byte is what byte at of a checked buffer should hold. */
__global__ void expected_byte(const uint8_t *buf, const uint64_t *off, const uint32_t *key, const uint8_t *width,
			      uint32_t n, uint64_t seed, int sender, uint64_t at, unsigned long long *out)
{
	uint8_t want = base_byte(at, sender);
	for (uint32_t j = 0; j < n; j++)
		if (at >= off[j] && at < off[j] + width[j]) {
			uint64_t v = efx_stamp_value(seed, key[j] >> 8, (int)(key[j] & 0xff), sender);
			want = (uint8_t)(v >> (8 * (at - off[j])));
		}
	out[0] = buf[at];
	out[1] = want;
}

/* bad runs a check kernel's result back: the first wrong byte, or ~0. */
static int first_bad(efx_cuda *c, hmem_state *h, unsigned long long *first, char *err)
{
	CU(cudaMemcpyAsync(h->pin + 2, c->bad, 2 * sizeof *h->pin, cudaMemcpyDeviceToHost, c->stream));
	CU(cudaStreamSynchronize(c->stream));
	*first = h->pin[2] ? h->pin[3] : ~0ULL;
	return 0;
}

static int reset_bad(efx_cuda *c, hmem_state *h, char *err)
{
	CU(cudaMemcpyAsync(c->bad, h->pin, 2 * sizeof *h->pin, cudaMemcpyHostToDevice, c->stream));
	return 0;
}

extern "C" int efx_cuda_dev_check(efx_cuda *c, const void *buf, uint64_t len, uint64_t seed, int sender, int full,
				  char *err)
{
	hmem_state *h = state(c, err);
	if (!h)
		return -1;
	unsigned long long at = ~0ULL;
	/* A copy into this buffer that this process started may still run when
	 * its completion arrives: shm's cudaMemcpy returned early until the
	 * buffers got SYNC_MEMOPS (efx_cuda_dev_alloc), and on one H200 a check
	 * read a byte before it landed. Waiting for every stream of the device
	 * keeps that out of any provider's path; on two H200s it cost 1-3.5 us an
	 * iteration at 64 KiB-1 MiB, nothing told apart above (4 runs each). */
	CU(cudaDeviceSynchronize());
	if (reset_bad(c, h, err))
		return -1;
	if (h->n) {
		check_stamps<<<(h->n + 255) / 256, 256, 0, c->stream>>>((const uint8_t *)buf, h->off, h->key, h->width,
									 h->n, seed, sender, c->bad);
		LAUNCHED("check_stamps");
	}
	if (first_bad(c, h, &at, err))
		return -1;
	if (at == ~0ULL && full) {
		/* every other byte: the base pattern, seen on a copy whose stamps are undone */
		if (len > h->scratch_len) {
			cudaFree(h->scratch);
			h->scratch = NULL;
			h->scratch_len = 0;
			CU(cudaMalloc(&h->scratch, len));
			h->scratch_len = len;
		}
		CU(cudaMemcpyAsync(h->scratch, buf, len, cudaMemcpyDeviceToDevice, c->stream));
		if (h->n) {
			dev_stamp<<<(h->n + 255) / 256, 256, 0, c->stream>>>(h->scratch, h->off, h->key, h->width, h->n, seed,
									     sender, 1, len);
			LAUNCHED("dev_stamp");
		}
		if (reset_bad(c, h, err))
			return -1;
		check_base<<<4 * c->sms, 256, 0, c->stream>>>(h->scratch, len, sender, c->bad);
		LAUNCHED("check_base");
		if (first_bad(c, h, &at, err))
			return -1;
	}
	if (at == ~0ULL)
		return 0;
	unsigned long long got[2];
	expected_byte<<<1, 1, 0, c->stream>>>((const uint8_t *)buf, h->off, h->key, h->width, h->n, seed, sender, at,
					      c->bad);
	LAUNCHED("expected_byte");
	CU(cudaMemcpyAsync(got, c->bad, sizeof got, cudaMemcpyDeviceToHost, c->stream));
	CU(cudaStreamSynchronize(c->stream));
	snprintf(err, EFX_CUDA_ERRLEN, "payload mismatch at byte %llu of %llu from rank %d: got 0x%02x, want 0x%02x",
		 at, (unsigned long long)len, sender, (unsigned)got[0], (unsigned)got[1]);
	return -1;
}

__global__ void dev_flip(uint8_t *p) { *p ^= 0x5a; }

extern "C" int efx_cuda_dev_corrupt(efx_cuda *c, void *buf, uint64_t len, char *err)
{
	dev_flip<<<1, 1, 0, c->stream>>>((uint8_t *)buf + len / 3); /* as efx_corrupt: off the stamps */
	LAUNCHED("dev_flip");
	CU(cudaStreamSynchronize(c->stream));
	return 0;
}

/* one_ref is one iteration of a reference: copies of size bytes from
 * ref[0] to ref[1] (and back when both ways), directly or through staged. */
static int one_ref(efx_cuda *c, hmem_state *h, int kind, int both, uint64_t size, char *err)
{
	for (int way = 0; way <= both; way++) {
		uint8_t *from = h->ref[way], *to = h->ref[1 - way];
		if (kind == EFX_REF_STAGED) {
			CU(cudaMemcpyAsync(h->staged, from, size, cudaMemcpyDeviceToHost, c->stream));
			CU(cudaMemcpyAsync(to, h->staged, size, cudaMemcpyHostToDevice, c->stream));
		} else {
			CU(cudaMemcpyAsync(to, from, size, cudaMemcpyDeviceToDevice, c->stream));
		}
	}
	return 0;
}

/* on_device allocates bytes on GPU device, then makes this GPU current again. */
static int on_device(efx_cuda *c, int device, uint8_t **ptr, uint64_t bytes, char *err)
{
	CU(cudaSetDevice(device));
	cudaError_t e = cudaMalloc(ptr, bytes);
	CU(cudaSetDevice(c->device));
	CU(e);
	return 0;
}

/* peer_access lets this GPU's copies reach device's memory directly
 * (NVLink or PCIe peer to peer) where the pair can; where it cannot, the
 * driver stages them, as it would the network's. */
static int peer_access(efx_cuda *c, int device, char *err)
{
	int can = 0;
	CU(cudaDeviceCanAccessPeer(&can, c->device, device));
	if (!can)
		return 0;
	cudaError_t e = cudaDeviceEnablePeerAccess(device, 0);
	if (e == cudaErrorPeerAccessAlreadyEnabled)
		(void)cudaGetLastError(); /* not sticky; cleared so the next check does not see it */
	else
		CU(e);
	return 0;
}

extern "C" int efx_cuda_dev_reference(efx_cuda *c, int kind, int both, int to_device, uint64_t size,
				      uint64_t warmup, uint64_t iterations, uint64_t *lat, efx_cuda_timing *t,
				      char *err)
{
	hmem_state *h = state(c, err);
	if (!h)
		return -1;
	int to = to_device >= 0 ? to_device : c->device;
	if (size > h->ref_len || to != h->ref_device) {
		free_refs(h);
		if (to != c->device && peer_access(c, to, err))
			return -1;
		CU(cudaMalloc(&h->ref[0], size));
		if (on_device(c, to, &h->ref[1], size, err))
			return -1;
		CU(cudaHostAlloc(&h->staged, size, cudaHostAllocDefault));
		h->ref_len = size;
		h->ref_device = to;
	}
	cudaEvent_t e[2];
	CU(cudaEventCreate(&e[0]));
	if (cudaEventCreate(&e[1]) != cudaSuccess) {
		cudaEventDestroy(e[0]);
		CU(cudaGetLastError());
	}
	int rc = 0;
	for (uint64_t i = 0; i < warmup && rc == 0; i++)
		rc = one_ref(c, h, kind, both, size, err);
	if (rc == 0)
		rc = cudaStreamSynchronize(c->stream) == cudaSuccess ? 0 : -1;
	/* Each iteration timed on its own between two events, as the network
	 * benchmark times its iterations; elapsed is their sum. */
	uint64_t sum = 0;
	for (uint64_t i = 0; i < iterations && rc == 0; i++) {
		float ms = 0;
		if (cudaEventRecord(e[0], c->stream) != cudaSuccess || one_ref(c, h, kind, both, size, err) ||
		    cudaEventRecord(e[1], c->stream) != cudaSuccess || cudaEventSynchronize(e[1]) != cudaSuccess ||
		    cudaEventElapsedTime(&ms, e[0], e[1]) != cudaSuccess)
			rc = -1;
		lat[i] = (uint64_t)(ms * 1e6);
		sum += lat[i];
	}
	cudaEventDestroy(e[0]);
	cudaEventDestroy(e[1]);
	if (rc) {
		if (err[0] == 0)
			CU(cudaGetLastError());
		return -1;
	}
	t->elapsed_ns = sum;
	t->iterations = iterations;
	return 0;
}
