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
#include <sys/uio.h>
#include <time.h>

#include "efaxx.h"
#include "efaxx_cuda.h"
#include "pattern.h"

#define EFX_ADDRLEN 256  /* room for any provider's endpoint name */
#define EFX_MAX_SLOTS 64 /* write slots: how far a writer may run ahead of verification; a power of two */
#define EFX_ACKS 8       /* ack receives kept posted by a writer */
#define EFX_EDGE 16      /* bytes of an op's edges, where its stamps are (efx_edges) */
#define EFX_HUGE_PAGE (2u << 20) /* transparent huge page size on x86-64 and most arm64 */
#define EFX_IDLE_CHECK 64        /* empty CQ reads between clock reads: an empty read costs about 0.1 us here, a clock read 0.04 */
/* Bytes of target slots (and of a writer's source slots) a size may use:
 * as many slots as fit, at least 1 (write) or 2 (all2all, the proxy; each
 * buffer is at least this big, and holds 2 of the largest size). The
 * number depends on the size alone, so a size measures the same in a
 * sweep as alone. 2 MiB streams 64 KiB writes
 * 32 deep and keeps both working sets in a core's cache: with 8 MiB, shm's
 * copies of 64 KiB to 1 MiB fell to half of fi_rma_bw's, which writes into
 * one buffer; tcp was the same with either. */
#define EFX_SLOT_BYTES (2u << 20)
/* Timed iterations of a size under a duration at most (the latencies of
 * one loop take 8 bytes each). */
#define EFX_MAX_ITERATIONS (1u << 20)

/* Remote CQ data of a write: the sender's rank and its iteration mod 2^16.
 * 32 bits, the least any provider with FI_RMA offers (efa). */
#define EFX_DATA(sender, it) (((uint64_t)(uint32_t)(sender) << 16) | ((it) & 0xffff))
#define EFX_DATA_SENDER(d) ((int)(((d) >> 16) & 0xffff))
#define EFX_DATA_TAG(d) ((uint32_t)((d) & 0xffff))

/* efx_fail formats a message into err and returns -1. */
#define efx_fail(err, ...) (snprintf((err), EFX_ERRLEN, __VA_ARGS__), -1)

/* efx_fail_at fails naming the file and line it is written on. */
#define efx_fail_at(err, fmt, ...) efx_fail((err), "%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__)

/* efx_fail_fi fails for a libfabric call that returned ret (negative):
 * "file:line: call<what>: fi_strerror", what a format that starts with a
 * space (" on rail %u") or "". */
#define efx_fail_fi(err, call, ret, what, ...) \
	efx_fail_at((err), "%s" what ": %s", (call), ##__VA_ARGS__, fi_strerror((int)-(ret)))

/* EFX_FI runs a libfabric call and fails with its name and fi_strerror. */
#define EFX_FI(err, call)                                       \
	do {                                                    \
		int efx_ret_ = (int)(call);                     \
		if (efx_ret_ < 0)                               \
			return efx_fail_fi(err, #call, efx_ret_, ""); \
	} while (0)

enum efx_op_kind { OP_SEND, OP_RECV, OP_WRITE, OP_ACK };

struct efx_rail;

/* An operation: libfabric's fi_context2 scratch first (FI_CONTEXT2), then
 * what is needed to post it again from the pending queue. */
typedef struct efx_op {
	struct fi_context2 fi;
	struct efx_op *next; /* pending queue, or the free list */
	struct efx_rail *rail;
	enum efx_op_kind kind;
	uint32_t index; /* ack receives: which one */
	int peer;
	void *buf;
	size_t len;
	void *desc;
	const uint8_t *edges; /* write: its stamped edges, gathered around buf's middle (efx_gather); NULL: buf is whole */
	uint64_t raddr, data; /* write: remote address and CQ data */
	uint64_t redges;      /* write: remote address of its edges, landed apart from its middle (efx_scatter); 0: in place */
	bool delivered;       /* write: complete only once the data is at the target (FI_DELIVERY_COMPLETE) */
	bool inject;          /* send or write of at most the provider's inject size: copied at post, no completion */
	int64_t posted_at;    /* ns: adaptive times each rail by its completions */
	uint64_t *done;       /* counter bumped on completion */
} efx_op;

/* A peer's receive region as it told us over MPI, per rail. */
typedef struct efx_remote {
	uint64_t addr; /* base for fi_write: its VA with FI_MR_VIRT_ADDR, else 0 */
	uint64_t key;
} efx_remote;

/* A buffer, registered once per rail. */
typedef struct efx_buf {
	uint8_t *ptr;
	size_t len;
	bool device; /* GPU memory from the plugin (memory = "device"), registered with FI_HMEM */
} efx_buf;

enum { BUF_SRC, BUF_DST, BUF_CTL, NBUFS };

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
	int (*a2a_alloc)(efx_cuda *c, uint64_t bytes, int rank, int world, void *handle, char *err);
	int (*a2a_attach)(efx_cuda *c, int peer, const void *handle, char *err);
	int (*a2a_copy)(efx_cuda *c, const efx_cuda_a2a_spec *spec, uint64_t *lat, efx_cuda_timing *t, char *err);
	int (*a2a_check)(efx_cuda *c, int sender, uint64_t size, uint64_t key, char *err);
	int (*queue)(efx_cuda *c, const efx_cuda_queue_spec *spec, uint64_t *lat, efx_cuda_timing *t, char *err);
	int (*host_register)(efx_cuda *c, void *ptr, uint64_t len, char *err);
	int (*proxy_ring)(efx_cuda *c, int cells, efx_ring *host, char *err);
	int (*proxy_launch)(efx_cuda *c, const efx_cuda_proxy_spec *spec, char *err);
	int (*proxy_wait)(efx_cuda *c, uint64_t *lat, efx_cuda_timing *t, char *err);
	int (*ordinal)(efx_cuda *c);
	int (*dev_alloc)(efx_cuda *c, uint64_t bytes, void **ptr, char *err);
	void (*dev_free)(efx_cuda *c, void *ptr);
	int (*dev_fill)(efx_cuda *c, void *buf, uint64_t len, int sender, char *err);
	int (*dev_stamps)(efx_cuda *c, uint32_t n, const uint64_t *off, const uint32_t *key, const uint8_t *width,
			  uint64_t size, char *err);
	int (*dev_stamp)(efx_cuda *c, void *buf, uint64_t seed, int sender, int unstamp, char *err);
	int (*dev_check)(efx_cuda *c, const void *buf, uint64_t len, uint64_t seed, int sender, int full, char *err);
	int (*dev_corrupt)(efx_cuda *c, void *buf, uint64_t len, char *err);
	int (*dev_reference)(efx_cuda *c, int kind, int both, int to_device, uint64_t size, uint64_t warmup,
			     uint64_t iterations, uint64_t *lat, efx_cuda_timing *t, char *err);
} efx_cuda_api;

/* The plan whose stamp list the plugin holds (memory.c). */
typedef struct efx_mem_plan {
	uint64_t size, chunk, n;
	uint32_t slices;
} efx_mem_plan;


/* One endpoint on one NIC, with everything libfabric hangs off it. */
typedef struct efx_rail {
	uint32_t index;
	struct fi_info *fi;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_cq *cq;
	int wait_fd; /* the CQ's wait object (FI_WAIT_FD) when its rank shares a core; -1: none */
	size_t inject_size; /* sends and writes this small are injected: copied at post, no completion */
	struct fid_av *av;
	struct fid_ep *ep;
	struct fid_mr *mr[NBUFS];
	void *desc[NBUFS];
	fi_addr_t *addrs;   /* world rank -> its endpoint on this rail */
	efx_remote *remote; /* world rank -> its dst buffer through this rail */

	efx_op *ops;            /* 2 * window pooled contexts */
	efx_op *free;           /* idle ones */
	uint32_t tx_inflight;   /* sends and writes queued or posted, not completed */
	uint32_t rx_inflight;   /* receives likewise */
	efx_op *pend_head, *pend_tail; /* refused with -FI_EAGAIN: posted again after a CQ read */
	double ns_per_byte;     /* adaptive: the rail's measured service time, 0 until measured */
	int64_t last_done;      /* ns of its last send or write completion */
} efx_rail;

/* The ack a target sends: value iterations of from have landed and been
 * checked; with landed set, only landed (the last one, whose full check
 * runs next: the writer's clock stops at its landing, not at the check). */
typedef struct efx_ack {
	uint32_t from, landed;
	uint64_t value;
} efx_ack;

/* A transfer plan: one buffer of size bytes cut into ops. With slices > 1
 * (split), slice s covers [s*base, (s+1)*base) and is cut into chunks on its
 * own; op k is numbered slice-major. */
typedef struct efx_plan {
	uint64_t size, chunk, base;
	uint32_t slices;
	uint64_t per_slice; /* ops of a full slice */
	uint64_t n;         /* ops in all */
} efx_plan;

/* One destination (or source) of a transfer and its posting cursors. */
typedef struct efx_stream {
	int peer;
	uint32_t rail;                 /* single, round-robin: the one rail */
	uint64_t remote_off;           /* write: offset of the target slot in the peer's dst */
	uint64_t edges_off;            /* write: offset of its edge record there, with the edges apart; 0: in place */
	uint64_t cur[EFX_MAX_RAILS];   /* fixed strategies: next op on each rail */
	uint64_t next;                 /* adaptive: next op */
} efx_stream;

/* A transfer: the same plan moved to (or from) each of its streams. */
typedef struct efx_xfer {
	enum efx_op_kind kind; /* OP_SEND, OP_RECV or OP_WRITE */
	const efx_plan *plan;
	uint8_t *buf;          /* local base: src, or where receives land */
	const uint8_t *edges;  /* write: the iteration's edges (efx_edges) around buf's unstamped ops; NULL: buf is stamped */
	uint64_t data;         /* write: remote CQ data */
	uint32_t nstreams;
	efx_stream *streams;
	uint64_t posted; /* ops posted (or queued behind refused ones) */
	uint64_t done;   /* completed ops */
	uint32_t window; /* ops in flight per rail (set when it starts) */
} efx_xfer;

/* A step's context: what every benchmark shares (the config, the rails
 * and buffers with their completion bookkeeping, the GPU when one is open,
 * the latencies of a timed loop) and a pointer to the benchmark's own state. */
struct efx_ctx {
	efx_config cfg;
	efx_info *info;
	char benchmark[32];
	const struct efx_bench *bench;
	void *state; /* the benchmark's own, made by its open, freed by its close */

	uint32_t nrails;
	efx_rail rail[EFX_MAX_RAILS];
	uint32_t rr_next; /* adaptive: where the search for the freest rail starts */

	efx_buf buf[NBUFS]; /* src: source slots; dst: a region per sender; ctl: acks */
	uint32_t src_slots; /* fixed source slots of max_size each (the proxy's GPU fills one while another is written); 0: per size (efx_set_src) */
	uint32_t src_n;      /* source slots at the current size (efx_src_slot), or with gather, edge records */
	bool gather;         /* the current size goes from slot 0, never stamped, with each iteration's edges gathered in */
	uint8_t *edges;      /* gather: src_n edge records of edge_len bytes (efx_src_edges), after slot 0 */
	uint64_t edge_len;
	uint64_t src_stride; /* their distance: the source holds src_filled slots this far apart, */
	uint32_t src_filled; /* each with the sender pattern from its own start */
	uint64_t src_len;    /* for this many bytes */
	uint32_t regions;   /* dst regions: one per sender that writes to this rank */
	uint64_t region_len;
	efx_op acks[EFX_ACKS];
	uint64_t *acked;  /* world: iterations each rank has acknowledged as checked */
	uint64_t *landed; /* world: iterations each rank has acknowledged as landed (at least acked) */

	uint32_t nslots;   /* slots per region at the current size */
	uint64_t *wr_count; /* regions x EFX_MAX_SLOTS: writes landed, by iteration mod EFX_MAX_SLOTS */
	uint32_t *wr_tag;   /* their iteration tag */

	int64_t last_progress; /* ns; a wait fails when nothing happens for timeout */
	uint64_t idle_polls;   /* CQ reads in a row that found nothing */
	int64_t idle_now;      /* ns, read at the last idle check (every EFX_IDLE_CHECK empty reads) */
	bool yield;            /* more ranks on this node than cores: idle waits give the core away */
	uint64_t rail_bytes[EFX_MAX_RAILS]; /* bytes posted per rail since the last reset */
	uint64_t requeued;                  /* posts that went to a pending queue since then */
	uint64_t *lat;                      /* cfg.iterations per-iteration times of the timed loop */
	char *err;

	efx_cuda_api cuda; /* loaded by GPU benchmarks and pinned memory only */
	efx_cuda *gpu;
	int32_t peer_gpu;      /* the GPU of the first peer's buffers (rank 1's; rank 0's for the others), -1: host memory */
	efx_mem_plan mem_plan; /* memory = "device": the plan the plugin has the stamps of */
};

/* A benchmark: one file and one row of the table in bench.c. Its open
 * makes the step's resources (efx_fabric_open, the GPU) and its own state
 * in *state; run measures one size, usually through efx_each_peer and
 * efx_loop_run (loop.c), and sets *n to the samples it took in out; close
 * frees the state, also after an open that failed half-way (NULL: no state).
 * What the context holds, efx_close frees. */
typedef struct efx_bench {
	const char *name; /* the row of the same name in the Go table says how many ranks it runs on */
	int (*open)(efx_ctx *c, void **state);
	int (*run)(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n);
	void (*close)(efx_ctx *c, void *state);
} efx_bench;

/* What a network benchmark asks of the fabric (efx_fabric_open). */
typedef struct efx_net {
	bool acks;          /* writers keep ack receives posted */
	bool every_sender;  /* every rank writes to this one: a dst region for each */
	uint32_t src_slots; /* source buffers of max_size; 0: one */
} efx_net;

typedef struct efx_loop efx_loop;

/* One rank's part in a timed loop (efx_loop_run): what it does around and
 * in each iteration. Each returns 0, or -1 with c->err set; those marked
 * optional may be NULL. */
typedef struct efx_side {
	int (*start)(efx_loop *l);                  /* optional: set the size up (slots, streams) */
	int (*sync)(efx_loop *l, uint64_t it);      /* meet the other ends: before iteration 0, and again at it = warmup before the clock starts */
	int (*ready)(efx_loop *l, uint64_t it);     /* optional, off the clock: wait until iteration it may go (its slot is free) */
	int (*iteration)(efx_loop *l, uint64_t it); /* on the clock */
	int (*verify)(efx_loop *l, uint64_t it);    /* optional, off the clock: check what arrived, ack it */
	int (*finish)(efx_loop *l, efx_sample *s);  /* optional, after the last iteration: bytes moved, final waits */
	bool stamps; /* sends its source: the loop stamps iteration it into l->src before the clock starts */
	bool lands;  /* its latency runs from one arrival to the next, not over each iteration */
	bool times;  /* the side records each timed iteration's latency itself (c->lat), when it learns its end */
} efx_side;

/* One timed loop: one size against one peer (or every rank), as efx_loop_run runs it. */
struct efx_loop {
	efx_ctx *c;
	void *state;    /* the benchmark's own */
	uint64_t size;
	int peer;       /* the other rank of the pair; -1: every rank at once */
	efx_plan plan;  /* the size cut into ops (set by the loop) */
	uint64_t warmup; /* warm-up iterations (set by the loop; under a duration, grown once the first are timed) */
	uint64_t total;  /* warm-up and timed iterations (set by the loop, likewise) */
	uint64_t first;  /* the first timed iteration once the clock runs, UINT64_MAX before */
	bool all;        /* every rank runs this loop at once (efx_loop_agree broadcasts) */
	uint8_t *src;   /* stamps: this iteration's source, stamped, which the corruption hook damages */
	int64_t landed; /* lands: set by an iteration that goes on after its arrival (a reply) to the arrival's time; else its end counts */
	uint32_t ahead; /* write: iterations the writer keeps in flight, beyond the target's slots when more (0: its slots) */
	uint32_t least; /* the fewest target slots a size gets: write 1, all2all and the proxy 2 (0) */
	bool apart;     /* write: its writer gathers, and a target may land each iteration's edges apart (write.c) */
	uint64_t edges_at, edge_len; /* write, set at start: where edge records start in a region, their length; 0: none */
};

/* A pairwise benchmark's measurement of one size against peer: it fills
 * s[0] (and s[1], for a second variant) and returns how many it filled, or -1. */
typedef int efx_pair_fn(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *s);

/* time */
static inline int64_t efx_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* efx_stride is the distance between write slots: a size rounded up to a cache line. */
static inline uint64_t efx_stride(uint64_t size) { return (size + 63) & ~(uint64_t)63; }

/* efx_edge_rec is the bytes of an iteration's edge record under plan p
 * (efx_edges), a whole number of cache lines. */
static inline uint64_t efx_edge_rec(const efx_plan *p) { return (p->n * EFX_EDGE + 63) & ~(uint64_t)63; }

/* efx_src_slot is the source buffer of iteration it: the source slots in
 * turn (efx_set_src), slot 0 for every iteration with gather, or the
 * proxy's fixed ones. */
static inline uint8_t *efx_src_slot(const efx_ctx *c, uint64_t it)
{
	return c->gather ? c->buf[BUF_SRC].ptr : c->buf[BUF_SRC].ptr + (it % c->src_n) * c->src_stride;
}

/* efx_src_edges is where iteration it's edges go with gather (efx_set_src). */
static inline uint8_t *efx_src_edges(const efx_ctx *c, uint64_t it)
{
	return c->edges + (it % c->src_n) * c->edge_len;
}

/* efx_slot_off is where iteration it of size lands in a region: slot it mod nslots. */
static inline uint64_t efx_slot_off(const efx_ctx *c, uint64_t size, uint64_t it)
{
	return (it & (c->nslots - 1)) * efx_stride(size);
}

/* efx_region is where sender's writes land in receiver's dst: one region per other rank. */
static inline uint32_t efx_region(int sender, int receiver) { return (uint32_t)(sender < receiver ? sender : sender - 1); }

/* mpi_boot.c */
int efx_allgather(efx_ctx *c, const void *send, void *recv, int bytes);
int efx_barrier(efx_ctx *c);
int efx_pair_sync(efx_ctx *c, int peer);
int efx_agree(efx_ctx *c, int peer, uint64_t *v, int n);

/* fabric.c */
int efx_fabric_open(efx_ctx *c, efx_net need);
void efx_fabric_close(efx_ctx *c);

/* ops.c */
int efx_progress(efx_ctx *c);
int efx_stalled(efx_ctx *c, const char *what);
efx_op *efx_take(efx_rail *r);
int efx_post(efx_ctx *c, efx_op *op);
int efx_post_acks(efx_ctx *c);
int efx_send_ack(efx_ctx *c, int peer, uint64_t value, bool landed);
int efx_wait_acks(efx_ctx *c, int peer, uint64_t n);
void efx_set_slots(efx_ctx *c, uint64_t size, uint32_t least);
uint32_t efx_slots_for(const efx_ctx *c, uint64_t size, uint32_t most, uint32_t least);
int efx_set_src(efx_ctx *c, const efx_plan *p, uint32_t n);
bool efx_gathers(const efx_ctx *c, const efx_plan *p);
int efx_wait_landed(efx_ctx *c, int sender, uint64_t n, uint64_t it);

/* xfer.c */
void efx_plan_init(efx_plan *p, uint64_t size, uint64_t chunk, uint32_t slices);
void efx_plan_op(const efx_plan *p, uint64_t k, uint64_t *off, uint64_t *len);
void efx_plan_for(efx_ctx *c, efx_plan *p, uint64_t size);
uint32_t efx_stream_rail(const efx_ctx *c, int a, int b);
int efx_xfer_run(efx_ctx *c, efx_xfer *xs, int nx, const char *what);
void efx_xfer_start(efx_ctx *c, efx_xfer *x);
int efx_xfer_fill(efx_ctx *c, efx_xfer *x);

/* efx_xfer_done reports whether every op of x has completed. */
static inline bool efx_xfer_done(const efx_xfer *x) { return x->done == (uint64_t)x->nstreams * x->plan->n; }

/* pattern.c */
uint64_t efx_seed(uint64_t size, int sender, uint64_t it);
void efx_fill(uint8_t *buf, size_t len, int sender);
void efx_stamp(uint8_t *buf, const efx_plan *p, uint64_t seed, int sender);
void efx_unstamp(uint8_t *buf, const efx_plan *p, int sender);
void efx_corrupt(uint8_t *buf, size_t len);
void efx_edges(uint8_t *rec, const efx_plan *p, uint64_t seed, int sender);
int efx_gather(const uint8_t *edges, const uint8_t *buf, size_t len, struct iovec iov[3]);
int efx_scatter(uint64_t edges, uint64_t mid, size_t len, uint64_t key, struct fi_rma_iov rma[3]);
uint32_t efx_stamp_list(const efx_plan *p, uint64_t *off, uint32_t *key, uint8_t *width);
int efx_check(const uint8_t *buf, const efx_plan *p, uint64_t seed, int sender, bool full, char *err);
#define EFX_TORN 1 /* efx_check_any: a mismatch that a write landing as it was read can explain */
int efx_check_any(const uint8_t *buf, const efx_plan *p, const uint64_t *seeds, int nseeds, int sender, bool full,
		  char *err);
int efx_check_apart(const uint8_t *rec, const uint8_t *buf, const efx_plan *p, uint64_t seed, int sender, bool full,
		    char *err);

/* loop.c: the timed loop and the pairings every benchmark runs */
int efx_loop_run(const efx_side *side, efx_loop *l, efx_sample *s);
int efx_each_peer(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n, efx_pair_fn *pair);
void efx_reset_counts(efx_ctx *c);
void efx_take_counts(const efx_ctx *c, efx_sample *s);

/* stats.c */
void efx_summarize(efx_sample *s, uint64_t *lat, uint64_t n);

/* cuda.c */
int efx_cuda_load(efx_cuda_api *api, char *err);
int efx_cuda_attach(efx_ctx *c);
int efx_memory_open(efx_ctx *c);
int efx_references_open(efx_ctx *c);
int efx_references(efx_ctx *c, uint64_t size, efx_sample *out);
void efx_cuda_unload(efx_cuda_api *api);

/* The benchmarks, one file each; bench.c's table lists them. */
extern const efx_bench efx_sendrecv, efx_send, efx_write, efx_all2all, efx_proxy, efx_ipc, efx_ipc_all2all, efx_queue;

/* memory.c: pattern.c on the buffers wherever the point put them */
int efx_mem_fill(efx_ctx *c, uint8_t *buf, size_t len, int sender);
int efx_mem_stamp(efx_ctx *c, uint8_t *buf, const efx_plan *p, uint64_t seed, int sender);
int efx_mem_unstamp(efx_ctx *c, uint8_t *buf, const efx_plan *p, int sender);
int efx_mem_corrupt(efx_ctx *c, uint8_t *buf, size_t len);
int efx_mem_check(efx_ctx *c, const uint8_t *buf, const efx_plan *p, uint64_t seed, int sender, bool full);

/* write.c: the writer's two sides, which the proxy benchmark runs too.
 * A writer's state is the streams it writes to at once, and, when it has
 * a pool of streams (pool), the iterations it keeps in flight: each
 * iteration's transfer in a ring, with its own copy of the streams'
 * cursors. Without a pool each iteration waits for its own completion. */
typedef struct efx_writer {
	enum efx_op_kind kind; /* what its iterations post: OP_WRITE, or OP_SEND (send.c) */
	efx_stream *streams;
	uint32_t n;
	efx_stream *pool;     /* npool streams for the ring's transfers; NULL: one iteration at a time */
	uint32_t npool;
	uint32_t depth;       /* iterations in flight at most, at the current size */
	efx_xfer ring[EFX_MAX_SLOTS];
	uint64_t head, tail;  /* iterations started, and retired (completed locally, in order) */
	const efx_loop *loop; /* the loop it runs in: which iterations are timed */
	int64_t started[EFX_MAX_SLOTS]; /* ns: when each iteration in flight started */
	int64_t ended;                  /* ns: when the last one retired */
} efx_writer;
extern const efx_side efx_write_initiator, efx_write_target, efx_streamer;
int efx_write_iteration(efx_ctx *c, const efx_plan *p, efx_stream *s, uint32_t ns, uint64_t it, uint64_t size,
			uint8_t *src);
int efx_write_slots(efx_ctx *c, const efx_stream *s, uint32_t ns, uint64_t v);
bool efx_ack_due(const efx_loop *l, uint64_t it, uint32_t reach);

#endif
