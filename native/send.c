/*
 * send.c: two-sided bandwidth one way: rank 0 streams messages to each
 * peer in turn, and the peer receives them.
 *
 * The shape of fi_rdm_tagged_bw and osu_bw, messages in flight one way,
 * where sendrecv is a ping-pong: over loopback tcp at 1 MiB a ping-pong
 * ran at 0.87-0.92 of fi_rdm_tagged_bw's stream of 64 messages in flight
 * (docs/performance.md), so sendrecv cannot stand for a stream.
 *
 * Rank 0 is write's streamer (efx_streamer) posting sends: iterations in
 * flight from one source buffer with their stamps gathered in, each
 * started once the peer has acknowledged the one a reach before it. The
 * peer keeps the receives of the next iterations posted in iteration
 * order, one for each of its slots: iteration i lands in slot i mod
 * nslots, whatever rail each op comes by (receives match in the order
 * they are posted, rail by rail, and both ends place ops on rails by the
 * same fixed rule). The peer checks each iteration, posts the receive of
 * the iteration nslots later over it, then acks as write's target does,
 * so the sender never starts an iteration whose receive is not yet due.
 * Only rank 0 posts ack receives: the peer's receives are the messages'.
 *
 * Timing as write's: the sender's timed phase ends when the peer has
 * acknowledged the last iteration (bytes delivered); the peer times one
 * arrival to the next.
 */
#include <stdlib.h>

#include "efx.h"

/* A peer's receives: one transfer for each slot, posted ahead. */
typedef struct receiver {
	efx_stream in[EFX_MAX_SLOTS];
	efx_xfer rx[EFX_MAX_SLOTS];
	uint64_t next; /* the first iteration whose receive is not set up yet */
} receiver;

typedef struct sender {
	efx_writer w;
	receiver r;
} sender;

static uint8_t *slot(const efx_ctx *c, uint64_t size, uint64_t it)
{
	return c->buf[BUF_DST].ptr + efx_slot_off(c, size, it);
}

/* rx is the receive of iteration it, in the ring of one for each slot. */
static efx_xfer *rx(efx_loop *l, uint64_t it)
{
	receiver *r = l->state;
	return &r->rx[it & (l->c->nslots - 1)];
}

/* post_ahead sets up the receives of every iteration before it + nslots
 * (and the loop's total) not yet set up, oldest first; fill_from posts
 * them. The slot of each was checked: iteration it - 1 was. */
static void post_ahead(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	receiver *r = l->state;
	for (; r->next < it + c->nslots && r->next < l->total; r->next++) {
		efx_xfer *x = rx(l, r->next);
		efx_stream *in = &r->in[x - r->rx];
		*in = (efx_stream){.peer = 0, .rail = efx_stream_rail(c, c->info->rank, 0)};
		*x = (efx_xfer){.kind = OP_RECV, .plan = &l->plan, .buf = slot(c, l->size, r->next), .nstreams = 1,
				.streams = in};
		efx_xfer_start(c, x);
	}
}

/* fill_from posts what the windows allow of the receives set up from
 * iteration it on, oldest first: a later receive never takes a place in
 * the order before an earlier one's. */
static int fill_from(efx_loop *l, uint64_t it)
{
	receiver *r = l->state;
	for (; it < r->next; it++)
		if (efx_xfer_fill(l->c, rx(l, it)))
			return -1;
	return 0;
}

static int receiver_start(efx_loop *l)
{
	receiver *r = l->state;
	efx_set_slots(l->c, l->size, l->least);
	r->next = 0;
	post_ahead(l, 0);
	return fill_from(l, 0);
}

static int receiver_sync(efx_loop *l, uint64_t it) { return efx_pair_sync(l->c, 0); }

/* receiver_iteration waits until iteration it has arrived in its slot. */
static int receiver_iteration(efx_loop *l, uint64_t it)
{
	post_ahead(l, it); /* under a duration the count grows after the warm-up */
	efx_xfer *x = rx(l, it);
	for (;;) {
		if (fill_from(l, it))
			return -1;
		if (efx_xfer_done(x))
			return 0;
		if (efx_progress(l->c) < 0 || efx_stalled(l->c, "the sender's messages"))
			return -1;
	}
}

/* receiver_verify checks iteration it, posts the receive of the iteration
 * that lands there next, then acks when due (as write's target: every
 * quarter of the slots, and landed at once for the last). */
static int receiver_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	bool last = it == l->total - 1, full = it == 0 || last;
	if (last && efx_send_ack(c, 0, it + 1, true)) /* the sender's clock stops */
		return -1;
	if (efx_mem_check(c, slot(c, l->size, it), &l->plan, efx_seed(l->size, 0, it), 0, full))
		return -1;
	post_ahead(l, it + 1);
	if (fill_from(l, it + 1))
		return -1;
	return efx_ack_due(l, it, c->nslots) ? efx_send_ack(c, 0, it + 1, false) : 0;
}

static int receiver_finish(efx_loop *l, efx_sample *s)
{
	s->bytes_recv = l->size;
	return 0;
}

static const efx_side receiving = {.start = receiver_start, .sync = receiver_sync, .iteration = receiver_iteration,
				   .verify = receiver_verify, .finish = receiver_finish, .lands = true};

/* pair streams from rank 0 to peer. The sender runs no further ahead
 * than the peer's slots (ahead 0: reach is the slots), since a message
 * whose receive is not posted waits in the provider. */
static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *s)
{
	sender *st = state;
	efx_loop l = {.c = c, .size = size, .peer = peer, .least = 1};
	if (c->info->rank != 0) {
		l.state = &st->r;
		return efx_loop_run(&receiving, &l, s) ? -1 : 1;
	}
	efx_writer *w = &st->w;
	l.state = w;
	w->streams[0] = (efx_stream){.peer = peer, .rail = efx_stream_rail(c, 0, peer)};
	w->n = 1;
	return efx_loop_run(&efx_streamer, &l, s) ? -1 : 1;
}

static int send_open(efx_ctx *c, void **state)
{
	sender *st = calloc(1, sizeof *st);
	*state = st;
	if (st) {
		st->w.kind = OP_SEND;
		st->w.npool = EFX_MAX_SLOTS;
		st->w.streams = calloc(1, sizeof *st->w.streams);
		st->w.pool = calloc(st->w.npool, sizeof *st->w.pool);
	}
	if (!st || !st->w.streams || !st->w.pool)
		return efx_fail(c->err, "send: out of memory");
	return efx_fabric_open(c, (efx_net){.acks = c->info->rank == 0});
}

static int send_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	return efx_each_peer(c, state, size, out, n, pair);
}

static void send_close(efx_ctx *c, void *state)
{
	sender *st = state;
	if (st) {
		free(st->w.streams);
		free(st->w.pool);
	}
	free(st);
}

const efx_bench efx_send = {.name = "send", .open = send_open, .run = send_run, .close = send_close};
