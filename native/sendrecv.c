/*
 * sendrecv.c: two-sided ping-pong between rank 0 and one peer.
 *
 * Each iteration rank 0 sends its buffer as the plan's ops (window in flight
 * per rail); the peer receives it and sends its own buffer back the same
 * way. One iteration is one round trip, in which each rank sends and
 * receives the size once. Both ends place ops on rails by the same fixed
 * rule, so every receive is posted on the rail its message comes by.
 *
 * Only the messages are on the round trip. Every message lands at the
 * start of the receive buffer, as in fi_rdm_pingpong: over tcp at 1 MiB,
 * landing in two halves in turn (2 MiB of receive buffer against an L2 of
 * 1 MiB a core) cost about a tenth of the bandwidth. One place is enough:
 * rank 0 posts the next receive as soon as the answer has arrived, since
 * the next answer cannot come before rank 0 has asked; the peer answers
 * first, then checks what arrived (two words an op), posts the next
 * receive over it and stamps its next answer (a message from rank 0 that
 * comes before that receive waits in the provider, unexpected; it cannot
 * land on what is being checked). Rank 0 checks the answer after its
 * clock has stopped.
 * Every iteration is checked, every byte of the first and last.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

#define REPLY 0x5245504c59ULL /* "REPLY": the answer's seed differs from the question's */

/* One end's state: the receive of the next iteration, posted ahead. */
typedef struct pingpong {
	efx_stream in, out;
	efx_xfer rx;
} pingpong;

/* landing is where every message lands. */
static uint8_t *landing(const efx_ctx *c) { return c->buf[BUF_DST].ptr; }

/* post_rx posts the receive of the next message from the peer. */
static int post_rx(efx_loop *l)
{
	pingpong *pp = l->state;
	pp->rx = (efx_xfer){.kind = OP_RECV, .plan = &l->plan, .buf = landing(l->c), .nstreams = 1,
			    .streams = &pp->in};
	efx_xfer_start(l->c, &pp->rx);
	return efx_xfer_fill(l->c, &pp->rx);
}

/* wait_rx waits until the receive posted ahead has completed. */
static int wait_rx(efx_loop *l)
{
	pingpong *pp = l->state;
	for (;;) {
		if (efx_xfer_fill(l->c, &pp->rx))
			return -1;
		if (efx_xfer_done(&pp->rx))
			return 0;
		if (efx_progress(l->c) < 0 || efx_stalled(l->c, "the peer's message"))
			return -1;
	}
}

/* send sends the plan from the source to the peer and waits for its local completion. */
static int send(efx_loop *l)
{
	pingpong *pp = l->state;
	efx_xfer tx = {.kind = OP_SEND, .plan = &l->plan, .buf = l->c->buf[BUF_SRC].ptr, .nstreams = 1, .streams = &pp->out};
	return efx_xfer_run(l->c, &tx, 1, "send completions");
}

/* next posts the receive of the iteration after it, if there is one. */
static int next(efx_loop *l, uint64_t it) { return it + 1 < l->total ? post_rx(l) : 0; }

static int start(efx_loop *l)
{
	pingpong *pp = l->state;
	int me = l->c->info->rank, peer = me == 0 ? l->peer : 0;
	pp->in = pp->out = (efx_stream){.peer = peer, .rail = efx_stream_rail(l->c, me, peer)};
	return post_rx(l);
}

static int sync_pair(efx_loop *l, uint64_t it) { return efx_pair_sync(l->c, l->c->info->rank == 0 ? l->peer : 0); }

/* initiator_iteration sends the stamped source and waits for the answer. */
static int initiator_iteration(efx_loop *l, uint64_t it) { return send(l) || wait_rx(l) ? -1 : 0; }

/* initiator_verify posts the next receive, then checks the answer. */
static int initiator_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	bool full = it == 0 || it == l->total - 1;
	if (next(l, it))
		return -1;
	return efx_mem_check(c, landing(c), &l->plan, efx_seed(l->size, l->peer, it) ^ REPLY, l->peer, full);
}

static int both_ways(efx_loop *l, efx_sample *s)
{
	s->bytes_sent = s->bytes_recv = l->size;
	return 0;
}

/* rank 0: stamps its buffer (the loop), sends it and receives the answer, on the clock */
static const efx_side initiator = {.start = start, .sync = sync_pair, .iteration = initiator_iteration,
				   .verify = initiator_verify, .finish = both_ways, .stamps = true};

/* answer_hook damages the answer to iteration it as the loop's test hooks
 * damage rank 0's sends, where this peer is corrupt_rank: the last stamp
 * of the middle answer, a byte off the stamps of the last one (undone by
 * responder_finish). So rank 0's checks of answers are proven too. */
static int answer_hook(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	uint8_t *src = c->buf[BUF_SRC].ptr;
	if (c->info->rank != c->cfg.corrupt_rank)
		return 0;
	if (l->size == c->cfg.corrupt_stamp_size && it == l->total / 2 && efx_mem_corrupt(c, src + l->size - 1, 1))
		return -1;
	return l->size == c->cfg.corrupt_size && it == l->total - 1 ? efx_mem_corrupt(c, src, l->size) : 0;
}

/* stamp_answer stamps the peer's answer to iteration it. */
static int stamp_answer(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	int me = c->info->rank;
	if (efx_mem_stamp(c, c->buf[BUF_SRC].ptr, &l->plan, efx_seed(l->size, me, it) ^ REPLY, me))
		return -1;
	return answer_hook(l, it);
}

static int responder_start(efx_loop *l) { return start(l) || stamp_answer(l, 0) ? -1 : 0; }

/* responder_iteration waits for rank 0's message and answers at once;
 * the loop reads the clock after it, off the round trip. */
static int responder_iteration(efx_loop *l, uint64_t it) { return wait_rx(l) || send(l) ? -1 : 0; }

/* responder_verify checks what arrived, posts the next receive over it and
 * stamps the next answer. */
static int responder_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	bool full = it == 0 || it == l->total - 1;
	if (efx_mem_check(c, landing(c), &l->plan, efx_seed(l->size, 0, it), 0, full) || next(l, it))
		return -1;
	return it + 1 < l->total ? stamp_answer(l, it + 1) : 0;
}

static int responder_finish(efx_loop *l, efx_sample *s)
{
	efx_ctx *c = l->c;
	bool hooked = c->info->rank == c->cfg.corrupt_rank && l->size == c->cfg.corrupt_size;
	if ((hooked && efx_mem_corrupt(c, c->buf[BUF_SRC].ptr, l->size)) ||
	    efx_mem_unstamp(c, c->buf[BUF_SRC].ptr, &l->plan, c->info->rank))
		return -1;
	return both_ways(l, s);
}

/* the peer: times one arrival to the next */
static const efx_side responder = {.start = responder_start, .sync = sync_pair, .iteration = responder_iteration,
				   .verify = responder_verify, .finish = responder_finish, .lands = true};

static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *s)
{
	efx_loop l = {.c = c, .state = state, .size = size, .peer = peer};
	return efx_loop_run(c->info->rank == 0 ? &initiator : &responder, &l, s) ? -1 : 1;
}

static int sendrecv_open(efx_ctx *c, void **state)
{
	*state = calloc(1, sizeof(pingpong));
	if (!*state)
		return efx_fail(c->err, "sendrecv: out of memory");
	return efx_fabric_open(c, (efx_net){0});
}

static int sendrecv_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	return efx_each_peer(c, state, size, out, n, pair);
}

static void sendrecv_close(efx_ctx *c, void *state) { free(state); }

const efx_bench efx_sendrecv = {.name = "sendrecv", .open = sendrecv_open, .run = sendrecv_run,
				.close = sendrecv_close};
