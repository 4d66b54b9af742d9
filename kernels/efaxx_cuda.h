/*
 * efaxx_cuda.h: the plain C interface of libefaxx_cuda.so, the CUDA plugin
 * of efaxx-runner. The runner never links it: it dlopens the library and
 * resolves every function below into a table at load time (native/cuda.c),
 * so CPU benchmarks work on machines without CUDA.
 *
 * Every function returns 0, or -1 with a message in err (EFX_CUDA_ERRLEN
 * bytes) naming the CUDA call that failed and its error string.
 */
#ifndef EFAXX_CUDA_H
#define EFAXX_CUDA_H

#include <stdint.h>

#include "ring.h"

#define EFX_CUDA_ABI 4
#define EFX_CUDA_ERRLEN 512
#define EFX_CUDA_IPC_HANDLE 64 /* one cudaIpcMemHandle_t */
#define EFX_CUDA_IPC_HANDLES (3 * EFX_CUDA_IPC_HANDLE) /* what a rank exports: its target, source and reference buffers */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct efx_cuda efx_cuda;

/* What one IPC copy measurement does: the source rank's data goes into the
 * target rank's buffer. grid == 0 measures cudaMemcpyAsync (the copy
 * engines) instead of the copy kernel. */
typedef struct efx_cuda_copy {
	uint64_t size;
	int32_t grid, block; /* grid -1: as many blocks as fit on the device at once */
	int32_t pull;        /* 0: the source's GPU writes into the target (push); 1: the target's GPU reads (pull) */
	uint64_t warmup, iterations;
	uint64_t seed;   /* iteration i's data is the source's base pattern XOR key(seed + i) */
	int32_t source;  /* rank whose base pattern is copied */
	int64_t corrupt; /* test hook: >= 0 flips the target's byte at this offset after the last iteration */
} efx_cuda_copy;

/* What one all-to-all measurement through CUDA IPC does on one rank: its
 * copies to npeers targets at once, each of size bytes into the target's
 * region for this rank, each on a stream of its own; iteration i of the
 * copy to peers[p] writes this rank's base pattern XOR key(seeds[p] + i).
 * Every iteration starts all copies together and ends when all are done. */
typedef struct efx_cuda_a2a_spec {
	uint64_t size;
	int32_t grid, block; /* the copy kernel's launch, its grid shared by the copies at once; grid 0: the copy engines; -1: every SM full */
	uint64_t warmup, iterations;
	int32_t npeers;
	const int32_t *peers;  /* the target ranks */
	const uint64_t *seeds; /* per target */
	int64_t corrupt;       /* test hook: >= 0 flips this byte of the first target's region after the last iteration */
	int32_t shifted;       /* 1: the copies one at a time on one stream, to rank+1 first (mod world), each with the
				  whole grid, the ranks in step (only where every rank copies to every other); 0: all
				  at once, a stream each, the grid shared */
} efx_cuda_a2a_spec;

/* What one queue measurement does. */
typedef struct efx_cuda_queue_spec {
	int32_t cells;      /* EFX_CELLS_* */
	int32_t blocking;   /* 1: each push waits for its completion; 0: one wait at the end (NBI) */
	uint32_t payload;   /* bytes per command, a multiple of 8 */
	uint32_t producers; /* GPU threads pushing */
	uint64_t items, warmup;
	int32_t core;       /* CPU core for the consumer thread; -1: leave it unpinned */
	int32_t corrupt;    /* test hook: 1 damages the last command after it is published */
	int32_t floor;      /* 1: measure the floor under the ring instead (below) */
} efx_cuda_queue_spec;

/* The floor of a queue measurement is the same commands (same cells, same
 * bytes, same producers, same mode) with nothing of the ring's protocol:
 * command i goes to cell i (no claim; every command has a cell of its
 * own, so no producer waits for room), its words are plain (not bound to
 * the cell), and the CPU waits for each cell's sequence word in turn and
 * answers with completed, checking nothing and storing no tail. Blocking,
 * it is a bare GPU->CPU->GPU flag round trip per command; NBI, the rate at
 * which the producers' stores reach a CPU thread. */

enum { EFX_CELLS_PINNED = 0, EFX_CELLS_MANAGED = 1, EFX_CELLS_DEVICE = 2 };

/* Timing of one measurement; per-iteration times go to the caller's array. */
typedef struct efx_cuda_timing {
	uint64_t elapsed_ns;
	uint64_t iterations;
	int32_t grid, block; /* the launch used (grid -1 resolved); 0x0 for the copy engines */
} efx_cuda_timing;

int efx_cuda_abi(void);
/* efx_cuda_open selects a device; info gets "NVIDIA H200, sm_90, 132 SMs, driver 13000". */
int efx_cuda_open(int device, efx_cuda **out, char *info, int infolen, char *err);
void efx_cuda_close(efx_cuda *c);

/* IPC: allocate this rank's buffers (source with its base pattern, target,
 * reference) and export them (EFX_CUDA_IPC_HANDLES bytes). */
int efx_cuda_ipc_alloc(efx_cuda *c, uint64_t bytes, int rank, void *handles, char *err);
/* Map a peer's exported buffers as slot. */
int efx_cuda_ipc_attach(efx_cuda *c, int slot, const void *handles, char *err);
/* On the source: fill the reference buffer with the last iteration's data,
 * which the copy engines copy (they cannot XOR a key in). */
int efx_cuda_ipc_prepare(efx_cuda *c, const efx_cuda_copy *spec, char *err);
/* Copy between this rank and slot: push into slot's target, or pull from
 * slot's source into this rank's target. lat gets spec->iterations per-launch
 * times in ns. */
int efx_cuda_ipc_copy(efx_cuda *c, int slot, const efx_cuda_copy *spec, uint64_t *lat, efx_cuda_timing *t,
		      char *err);
/* Check every byte of this rank's target against the source's last iteration. */
int efx_cuda_ipc_check(efx_cuda *c, const efx_cuda_copy *spec, char *err);

/* All-to-all through CUDA IPC: allocate this rank's source (its base
 * pattern) and a target buffer of a region of bytes per rank of world, and
 * export the target (EFX_CUDA_IPC_HANDLE bytes). */
int efx_cuda_a2a_alloc(efx_cuda *c, uint64_t bytes, int rank, int world, void *handle, char *err);
/* Map rank peer's exported target buffer. */
int efx_cuda_a2a_attach(efx_cuda *c, int peer, const void *handle, char *err);
/* Run spec's copies. lat gets spec->iterations times for each of 1 +
 * npeers: first every iteration's (all copies), then each target's copy
 * in it; t[0] is the whole, t[1 + p] target p's (its copies' times added). */
int efx_cuda_a2a_copy(efx_cuda *c, const efx_cuda_a2a_spec *spec, uint64_t *lat, efx_cuda_timing *t, char *err);
/* Check every word of this rank's region for sender: sender's base
 * pattern XOR key(key), the last iteration's. */
int efx_cuda_a2a_check(efx_cuda *c, int sender, uint64_t size, uint64_t key, char *err);

/* Queue: GPU producers push commands that a CPU thread pops and checks.
 * lat gets spec->items per-command times in ns: push to completion when
 * blocking, the push alone when not. */
int efx_cuda_queue(efx_cuda *c, const efx_cuda_queue_spec *spec, uint64_t *lat, efx_cuda_timing *t, char *err);

/* Proxy: GPU threads write each iteration's stamps (the words that change
 * per iteration; the rest of the payload is the base pattern, written
 * once) into a source slot of host memory, make them visible, and push one
 * command per iteration into a ring; the caller's CPU thread pops them and
 * posts the writes (native/proxy.c). */
typedef struct efx_cuda_proxy_spec {
	uint8_t *src;               /* the source slots: host memory given to efx_cuda_host_register */
	uint64_t stride;            /* bytes between slots */
	uint32_t slots;             /* iteration i uses slot i % slots */
	uint32_t nstamps;           /* entries of the three arrays below (host memory, as efx_stamp_list fills them) */
	const uint64_t *stamp_off;  /* offset in a slot */
	const uint32_t *stamp_key;  /* op << 8 | k */
	const uint8_t *stamp_width; /* 8, or a short op's length */
	uint64_t seed;              /* iteration i's seed is seed ^ i */
	int32_t sender;
	uint64_t first, n;          /* iterations [first, first + n) */
	int32_t blocking;           /* 1: wait for each command's completion; 0: once at the end (NBI) */
	int64_t timeout_ns;
} efx_cuda_proxy_spec;

/* Register host memory so GPU kernels can write it. */
int efx_cuda_host_register(efx_cuda *c, void *ptr, uint64_t len, char *err);
/* Make the proxy's command ring, its cells where cells says
 * (EFX_CELLS_PINNED or EFX_CELLS_MANAGED), empty; host gets the CPU's view. */
int efx_cuda_proxy_ring(efx_cuda *c, int cells, efx_ring *host, char *err);
/* Start the kernel of spec; it runs while the caller serves the ring. */
int efx_cuda_proxy_launch(efx_cuda *c, const efx_cuda_proxy_spec *spec, char *err);
/* Wait for it; lat gets spec->n per-iteration times in ns: the whole
 * iteration when blocking, the GPU's part (stamp, fence, push) when not. */
int efx_cuda_proxy_wait(efx_cuda *c, uint64_t *lat, efx_cuda_timing *t, char *err);

/* The CUDA device number of the open GPU (what FI_HMEM registration names). */
int efx_cuda_ordinal(efx_cuda *c);

/* Network buffers in GPU memory (memory = "device"), which the provider
 * registers through FI_HMEM. What native/pattern.c does to host buffers is
 * done here, on the GPU, with the same bytes and the same messages. */
int efx_cuda_dev_alloc(efx_cuda *c, uint64_t bytes, void **ptr, char *err);
void efx_cuda_dev_free(efx_cuda *c, void *ptr);
/* The sender's base pattern over len bytes (efx_fill). */
int efx_cuda_dev_fill(efx_cuda *c, void *buf, uint64_t len, int sender, char *err);
/* The stamp list of the current plan (efx_stamp_list) and its size. */
int efx_cuda_dev_stamps(efx_cuda *c, uint32_t n, const uint64_t *off, const uint32_t *key, const uint8_t *width,
			uint64_t size, char *err);
/* Write the stamps of seed (efx_stamp), or with unstamp the base pattern
 * back where they go (efx_unstamp). */
int efx_cuda_dev_stamp(efx_cuda *c, void *buf, uint64_t seed, int sender, int unstamp, char *err);
/* Check the stamps of seed and, when full, every other byte of len
 * (efx_check); the message names the first wrong byte. */
int efx_cuda_dev_check(efx_cuda *c, const void *buf, uint64_t len, uint64_t seed, int sender, int full, char *err);
/* Flip one byte off the stamps (efx_corrupt, the test hook). */
int efx_cuda_dev_corrupt(efx_cuda *c, void *buf, uint64_t len, char *err);

/* The references of a network benchmark on GPU memory, in the same run:
 * iterations of size bytes copied by cudaMemcpyAsync from a buffer on
 * this GPU to one on GPU to_device (this one when negative; peer access
 * enabled where the pair has it) and back, when both: a round trip;
 * directly or staged through pinned host memory. lat gets each
 * iteration's time between two events; elapsed is their sum. */
enum { EFX_REF_DEVICE = 0, EFX_REF_STAGED = 1 };
int efx_cuda_dev_reference(efx_cuda *c, int kind, int both, int to_device, uint64_t size, uint64_t warmup,
			   uint64_t iterations, uint64_t *lat, efx_cuda_timing *t, char *err);

#ifdef __cplusplus
}
#endif

#endif
