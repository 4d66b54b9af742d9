/*
 * sendrecv.c: two-sided ping-pong between rank 0 and one peer.
 *
 * Each iteration rank 0 sends its buffer as the plan's ops (window in flight
 * per rail); the peer receives it, checks the stamps and sends its own
 * buffer back the same way. One iteration is one round trip, in which each
 * rank sends and receives the size once. Both ends place ops on rails by
 * the same fixed rule, so every receive is posted on the rail its message
 * comes by. Full checks run off the clock.
 */
#include <string.h>

#include "efx.h"

#define REPLY 0x5245504c59ULL /* "REPLY": the answer's seed differs from the question's */

/* move runs a receive of the plan from peer, a send of it to peer, or both at once. */
static int move(efx_ctx *c, const efx_plan *p, int peer, bool send, bool recv)
{
	efx_stream out = {.peer = peer, .rail = efx_stream_rail(c, c->info->rank, peer)}, in = out;
	efx_xfer xs[2];
	int n = 0;
	if (recv) /* first, so that receives are posted before our send provokes the answer */
		xs[n++] = (efx_xfer){.kind = OP_RECV, .plan = p, .buf = c->buf[BUF_DST].ptr, .nstreams = 1, .streams = &in};
	if (send)
		xs[n++] = (efx_xfer){.kind = OP_SEND, .plan = p, .buf = c->buf[BUF_SRC].ptr, .nstreams = 1, .streams = &out};
	return efx_xfer_run(c, xs, n, recv ? "the peer's message" : "send completions");
}

static int initiator_sync(efx_loop *l, uint64_t it) { return efx_pair_sync(l->c, l->peer); }

static int initiator_iteration(efx_loop *l, uint64_t it) { return move(l->c, &l->plan, l->peer, true, true); }

static int initiator_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	bool full = it == 0 || it == l->total - 1;
	return efx_mem_check(c, c->buf[BUF_DST].ptr, &l->plan, efx_seed(l->size, l->peer, it) ^ REPLY, l->peer, full);
}

static int both_ways(efx_loop *l, efx_sample *s)
{
	s->bytes_sent = s->bytes_recv = l->size;
	return 0;
}

/* rank 0: stamps its buffer (the loop), sends it and receives the answer, on the clock */
static const efx_side initiator = {.sync = initiator_sync, .iteration = initiator_iteration,
				   .verify = initiator_verify, .finish = both_ways, .stamps = true};

static int responder_sync(efx_loop *l, uint64_t it) { return efx_pair_sync(l->c, 0); }

/* responder_iteration receives rank 0's buffer, checks its stamps and sends its own back. */
static int responder_iteration(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	int me = c->info->rank;
	if (move(c, &l->plan, 0, false, true))
		return -1;
	l->landed = efx_now();
	if (efx_mem_check(c, c->buf[BUF_DST].ptr, &l->plan, efx_seed(l->size, 0, it), 0, false) ||
	    efx_mem_stamp(c, c->buf[BUF_SRC].ptr, &l->plan, efx_seed(l->size, me, it) ^ REPLY, me))
		return -1;
	return move(c, &l->plan, 0, true, false);
}

static int responder_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	bool full = it == 0 || it == l->total - 1;
	return full ? efx_mem_check(c, c->buf[BUF_DST].ptr, &l->plan, efx_seed(l->size, 0, it), 0, true) : 0;
}

static int responder_finish(efx_loop *l, efx_sample *s)
{
	if (efx_mem_unstamp(l->c, l->c->buf[BUF_SRC].ptr, &l->plan, l->c->info->rank))
		return -1;
	return both_ways(l, s);
}

/* the peer: times one arrival to the next; its answer is stamped inside the iteration */
static const efx_side responder = {.sync = responder_sync, .iteration = responder_iteration,
				   .verify = responder_verify, .finish = responder_finish, .lands = true};

static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *s)
{
	efx_loop l = {.c = c, .size = size, .peer = peer};
	return efx_loop_run(c->info->rank == 0 ? &initiator : &responder, &l, s) ? -1 : 1;
}

static int sendrecv_open(efx_ctx *c, void **state) { return efx_fabric_open(c, (efx_net){0}); }

static int sendrecv_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	return efx_each_peer(c, state, size, out, n, pair);
}

const efx_bench efx_sendrecv = {.name = "sendrecv", .open = sendrecv_open, .run = sendrecv_run};
