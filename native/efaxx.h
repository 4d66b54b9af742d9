/*
 * efaxx.h: the one C interface between efaxx-runner (Go) and its native
 * core (MPI bootstrap, libfabric endpoints, timed loops).
 *
 * Go crosses into C once per message size: efx_run() runs every warm-up and
 * timed iteration of that size, for every peer, and fills plain structs.
 * C never keeps a Go pointer. Every function that can fail returns 0, or
 * -1 with a message in err (EFX_ERRLEN bytes) that names what failed: the
 * libfabric or MPI call with its file and line, or the check.
 */
#ifndef EFAXX_H
#define EFAXX_H

#include <stddef.h>
#include <stdint.h>

#define EFX_ERRLEN 512
#define EFX_MAX_RAILS 16

typedef struct efx_ctx efx_ctx;

/* How chunks are spread over the rails (see native/xfer.c). */
enum {
	EFX_SINGLE = 0,      /* rail 0 only */
	EFX_SPLIT = 1,       /* one slice of each buffer per rail, in flight together */
	EFX_ROUND_ROBIN = 2, /* whole buffers per destination: destination d on rail (d + own rank) mod rails */
	EFX_PER_OP = 3,      /* chunk k on rail k mod rails */
	EFX_ADAPTIVE = 4,    /* each chunk to the rail with the most free window */
};

/* Where a network benchmark's buffers live. */
enum { EFX_MEMORY_HOST = 0, EFX_MEMORY_PINNED = 1, EFX_MEMORY_DEVICE = 2 };

/* What one step measures; strings are owned by the caller. */
typedef struct efx_config {
	const char *benchmark; /* a name of efx_benchmark_name's list (Go: the benchmarks table) */
	const char *provider;  /* "auto", "shm", "tcp", "efa", or any libfabric provider name */
	const char *nics;      /* comma-separated libfabric domains or fnmatch patterns ("lo", "nic*"); NULL/"": any */
	uint32_t rails;        /* endpoints to open, one per NIC (NICs are reused when there are fewer) */
	uint32_t strategy;     /* EFX_SINGLE ... EFX_ADAPTIVE */
	int32_t core;          /* CPU to pin the measuring (queue: consuming) thread to; -1: no pinning */
	int32_t memory;        /* network buffers: EFX_MEMORY_* */
	uint64_t max_size;     /* largest message size; buffers are sized for it */
	uint64_t chunk;        /* bytes per fabric operation */
	uint32_t window;       /* operations in flight per rail */
	uint32_t slots;        /* most target slots per sender (write may keep more iterations in flight), a power of two; 0: EFX_MAX_SLOTS */
	uint64_t iterations;   /* timed iterations per size and peer (when duration_ns is 0) */
	int64_t duration_ns;   /* > 0: each size's timed iterations fill about this long, chosen after the warm-up (sendrecv, write, all2all) */
	uint64_t warmup;       /* untimed iterations before them */
	int64_t timeout_ns;    /* longest wait without any progress */
	uint64_t corrupt_size; /* test hook: corrupt the payload of this size once; 0 = off */
	uint64_t corrupt_stamp_size; /* test hook: damage the last stamp of the middle iteration at this size; 0 = off */
	int32_t corrupt_rank;        /* test hooks: the rank whose sends they damage (rank 0 unless set) */

	/* GPU benchmarks (ipc, queue, proxy); read only by them. */
	int32_t grid, block;  /* ipc copy kernel launch; grid -1: sized from the device */
	int32_t pull;         /* ipc: 1 the target's GPU reads (pull), 0 the source's GPU writes (push) */
	int32_t bidir;        /* ipc: 1 the two GPUs of a pair write into each other at once */
	int32_t shifted;      /* ipc-all2all: 1 a GPU's copies one at a time, to rank+1 first; 0 all at once */
	int32_t cells;        /* queue, proxy: where the cells live, EFX_CELLS_* (kernels/efaxx_cuda.h) */
	int32_t blocking;     /* queue, proxy: 1 waits for each command's completion, 0 once at the end (NBI) */
	uint32_t producers;   /* queue: threads pushing commands */
	int32_t cpu_producer; /* queue: 1 runs the producers on CPU threads: the ring with no GPU */
} efx_config;

/* One rail as opened: filled by efx_open. */
typedef struct efx_rail_info {
	char domain[128];  /* the NIC (libfabric domain) */
	char fabric[128];
	uint64_t link_bps; /* its link speed in bit/s, 0 when unknown */
} efx_rail_info;

/* The fingerprint of this rank, filled by efx_mpi_init and efx_open. */
typedef struct efx_info {
	int32_t rank, world, local_rank, local_size;
	char host[256];
	char provider[64];
	char mr_mode[128]; /* "FI_MR_VIRT_ADDR|FI_MR_PROV_KEY", or "" */
	char libfabric[32];
	char mpi[256];
	int32_t core;      /* the CPU this rank is pinned to, -1 when not pinned */
	uint32_t nrails;
	efx_rail_info rail[EFX_MAX_RAILS];
	char gpu[256]; /* "NVIDIA H200, sm_90, 132 SMs, ..." when a GPU benchmark opened one */
	char host_pages[64]; /* "huge pages back 128 of 128 MiB": the data buffers' page size */
	char libfabric_lib[256]; /* the libfabric library this rank loaded (its path) */
	char memory[256];        /* where the data buffers are, and who registered them: "GPU memory (cudaMalloc), registered by shm through FI_HMEM_CUDA" */
} efx_info;

enum { EFX_ROLE_INITIATOR = 0, EFX_ROLE_TARGET = 1, EFX_ROLE_BOTH = 2 };

/* One measurement of one rank against one peer (or all, peer -1) at one size. */
typedef struct efx_sample {
	int32_t peer; /* -1: every other rank at once */
	int32_t role;
	uint64_t size;
	uint64_t bytes_sent; /* payload bytes this rank sent per iteration */
	uint64_t bytes_recv; /* payload bytes this rank received per iteration */
	uint64_t iterations;
	uint64_t elapsed_ns;
	uint64_t lat_min, lat_p50, lat_p99, lat_max; /* per-iteration ns */
	uint64_t rail_bytes[EFX_MAX_RAILS];          /* bytes this rank sent on each rail, all timed iterations */
	uint64_t requeued; /* its posts the provider refused with -FI_EAGAIN, queued and posted later */
	char variant[32]; /* how it was measured, when one run measures several ways ("264x512", "memcpy") */
} efx_sample;

/* efx_mpi_init learns this rank's place; on failure info->rank is -1 unless it was learnt. */
int efx_mpi_init(efx_info *info, char *err);
int efx_open(const efx_config *cfg, efx_info *info, efx_ctx **out, char *err);
/* The most samples one rank takes at one size: ipc-all2all's 4 * world - 2
 * (a network benchmark on GPU memory: 2 * world and its 2 references). */
static inline int efx_samples(int world) { return 4 * world; }

/* efx_run measures one size. out must hold efx_samples(world) samples; *n is set. */
int efx_run(efx_ctx *ctx, uint64_t size, efx_sample *out, int *n, char *err);
void efx_close(efx_ctx *ctx);
/* efx_benchmark_name names benchmark i of the native table, from 0; NULL
 * past its end. The Go side's table of benchmarks (package benchmarks)
 * must name the same ones: a test holds them together. */
const char *efx_benchmark_name(int i);
int efx_mpi_finalize(char *err);
/* efx_mpi_abort ends every rank of the job; it returns only when that failed. */
int efx_mpi_abort(int code, char *err);

/* efx_ipc_plan fills rounds (world * world entries) with the rounds of an
 * ipc step: each round's source and target; it returns how many. */
int efx_ipc_plan(int world, int bidir, int32_t (*rounds)[2]);

/* efx_a2a_plan fills copies (2 * world * world entries) with the copies of
 * an ipc-all2all step as (step, source, target): every ordered pair alone,
 * then all of them in one step; it returns how many. */
int efx_a2a_plan(int world, int32_t (*copies)[3]);

#endif
