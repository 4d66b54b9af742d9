/*
 * efx.h: internal declarations shared by the native sources. Not part of
 * the cgo interface (that is efaxx.h).
 */
#ifndef EFX_H
#define EFX_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "efaxx.h"
#include "efaxx_cuda.h"

#define EFX_ADDRLEN 256 /* room for any provider's endpoint name */
#define EFX_MAX_SLOTS 64 /* write slots: how far a write initiator may run ahead of verification */
#define EFX_ACKS 8      /* ack receives kept posted by a write initiator */

/* efx_fail formats a message into ctx->err and returns -1. */
#define efx_fail(err, ...) (snprintf((err), EFX_ERRLEN, __VA_ARGS__), -1)

/* EFX_FI runs a libfabric call and fails with its name and fi_strerror. */
#define EFX_FI(err, call)                                                        \
	do {                                                                     \
		int efx_ret_ = (int)(call);                                      \
		if (efx_ret_ < 0)                                                \
			return efx_fail(err, "%s:%d: %s: %s", __FILE__, __LINE__, \
					#call, fi_strerror(-efx_ret_));          \
	} while (0)

enum efx_op_kind { OP_TX, OP_RX, OP_ACK };

/* An operation context: libfabric needs fi_context2 scratch first (FI_CONTEXT2). */
typedef struct efx_op {
	struct fi_context2 fi;
	enum efx_op_kind kind;
	uint32_t index;
} efx_op;

/* A peer's receive region as it told us over MPI. */
typedef struct efx_remote {
	uint64_t addr; /* base for fi_write: its VA with FI_MR_VIRT_ADDR, else 0 */
	uint64_t key;
} efx_remote;

/* A registered buffer. */
typedef struct efx_buf {
	uint8_t *ptr;
	size_t len;
	struct fid_mr *mr;
	void *desc;
} efx_buf;

/* The CUDA plugin's functions, resolved at load (cuda.c). */
typedef struct efx_cuda_api {
	void *lib;
	int (*abi)(void);
	int (*open)(int device, efx_cuda **out, char *info, int infolen, char *err);
	void (*close)(efx_cuda *c);
	int (*ipc_alloc)(efx_cuda *c, uint64_t bytes, int rank, void *handles, char *err);
	int (*ipc_attach)(efx_cuda *c, int slot, const void *handles, char *err);
	int (*ipc_prepare)(efx_cuda *c, const efx_cuda_copy *spec, char *err);
	int (*ipc_copy)(efx_cuda *c, int slot, const efx_cuda_copy *spec, uint64_t *lat, efx_cuda_timing *t, char *err);
	int (*ipc_check)(efx_cuda *c, const efx_cuda_copy *spec, char *err);
	int (*queue)(efx_cuda *c, const efx_cuda_queue_spec *spec, uint64_t *lat, efx_cuda_timing *t, char *err);
} efx_cuda_api;

struct efx_ctx {
	efx_config cfg;
	efx_info *info;
	char benchmark[32];

	struct fi_info *fi;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_ep *ep;
	fi_addr_t *addrs;    /* world rank -> fabric address */
	efx_remote *remote;  /* world rank -> its dst region */
	uint64_t mr_key_next;

	efx_buf src; /* max_size: what this rank sends or writes */
	efx_buf dst; /* 2 * max_size: where peers' data lands, cut into slots */
	efx_buf ctl; /* ack messages */
	efx_op *ops;        /* 2*window pooled tx/rx contexts, then EFX_ACKS ack contexts */
	uint32_t *free_ops; /* indices of idle pooled contexts */
	uint32_t nfree;

	/* Completion state, advanced by efx_progress. */
	uint64_t tx_posted, tx_done;
	uint64_t rx_done;
	uint64_t acked;           /* highest ack received: iterations the target verified */
	uint32_t ack_repost;      /* bit i: ack receive i waits to be posted again */
	uint32_t nslots;                  /* slots of the current write phase */
	uint64_t wr_count[EFX_MAX_SLOTS]; /* remote writes landed per slot */
	uint32_t wr_tag[EFX_MAX_SLOTS];   /* the iteration tag they carried */
	int64_t last_progress;    /* ns; a wait fails when nothing happens for timeout */

	uint64_t *lat;
	char *err;

	efx_cuda_api cuda; /* loaded by GPU benchmarks only */
	efx_cuda *gpu;
};

/* time */
static inline int64_t efx_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* efx_stride is the distance between write slots: a size rounded up to a cache line. */
static inline uint64_t efx_stride(uint64_t size) { return (size + 63) & ~(uint64_t)63; }

/* mpi_boot.c */
int efx_allgather(efx_ctx *c, const void *send, void *recv, int bytes);
int efx_barrier(efx_ctx *c);
int efx_pair_sync(efx_ctx *c, int peer);

/* fabric.c */
int efx_fabric_open(efx_ctx *c);
void efx_fabric_close(efx_ctx *c);
int efx_progress(efx_ctx *c);
int efx_wait_tx(efx_ctx *c, uint64_t inflight, const char *what);
int efx_post_send(efx_ctx *c, const void *buf, size_t len, int peer);
int efx_post_recv(efx_ctx *c, void *buf, size_t len);
int efx_post_write(efx_ctx *c, size_t off, size_t len, int peer, uint64_t slot_off, uint32_t tag);
int efx_post_acks(efx_ctx *c);
int efx_send_ack(efx_ctx *c, int peer, uint64_t value);
int efx_stalled(efx_ctx *c, const char *what);

/* pattern.c */
void efx_fill(uint8_t *buf, size_t len, int sender);
void efx_stamp(uint8_t *buf, size_t len, size_t chunk, uint64_t seq, int sender);
void efx_unstamp(uint8_t *buf, size_t len, size_t chunk, int sender);
void efx_corrupt(uint8_t *buf, size_t len);
int efx_check(const uint8_t *buf, size_t len, size_t chunk, uint64_t seq, int sender, bool full,
	      char *err);

/* bench.c */
uint64_t efx_seed(uint64_t size, int pair, uint64_t it);

/* stats.c */
void efx_summarize(efx_sample *s, uint64_t *lat, uint64_t n);

/* cuda.c */
int efx_cuda_load(efx_cuda_api *api, char *err);
void efx_cuda_unload(efx_cuda_api *api);

/* benchmarks: open prepares a step, run measures one size against one peer
 * and returns the samples written (or -1), size measures one size alone. */
int efx_sendrecv(efx_ctx *c, uint64_t size, int peer, efx_sample *out);
int efx_write(efx_ctx *c, uint64_t size, int peer, efx_sample *out);
int efx_ipc_open(efx_ctx *c);
int efx_ipc(efx_ctx *c, uint64_t size, int peer, efx_sample *out);
int efx_queue_open(efx_ctx *c);
int efx_queue(efx_ctx *c, uint64_t size, efx_sample *out);

#endif
