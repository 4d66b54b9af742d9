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

static int initiator(efx_ctx *c, uint64_t size, int peer, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int64_t start = 0, end = 0;
	efx_plan p;
	efx_plan_for(c, &p, size);
	if (efx_pair_sync(c, peer))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_pair_sync(c, peer))
				return -1;
			efx_reset_counts(c);
			start = efx_now();
		}
		uint64_t seed = efx_seed(size, 0, it);
		efx_stamp(c->buf[BUF_SRC].ptr, &p, seed, 0);
		bool hook = size == c->cfg.corrupt_size && it == total - 1;
		if (hook)
			efx_corrupt(c->buf[BUF_SRC].ptr, size);
		int64_t t0 = efx_now();
		if (move(c, &p, peer, true, true))
			return -1;
		end = efx_now();
		if (it >= w)
			c->lat[it - w] = end - t0;
		if (hook)
			efx_corrupt(c->buf[BUF_SRC].ptr, size);
		bool full = it == 0 || it == total - 1;
		if (efx_check(c->buf[BUF_DST].ptr, &p, efx_seed(size, peer, it) ^ REPLY, peer, full, c->err))
			return -1;
	}
	s->elapsed_ns = end - start;
	s->bytes_sent = s->bytes_recv = size;
	efx_rail_bytes(c, s);
	efx_summarize(s, c->lat, c->cfg.iterations);
	efx_unstamp(c->buf[BUF_SRC].ptr, &p, 0);
	return 0;
}

static int responder(efx_ctx *c, uint64_t size, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int me = c->info->rank;
	int64_t start = 0, prev = 0, end = 0;
	efx_plan p;
	efx_plan_for(c, &p, size);
	if (efx_pair_sync(c, 0))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_pair_sync(c, 0))
				return -1;
			efx_reset_counts(c);
			start = prev = efx_now();
		}
		if (move(c, &p, 0, false, true))
			return -1;
		int64_t landed = efx_now();
		if (it >= w) {
			c->lat[it - w] = landed - prev;
			prev = landed;
		}
		uint64_t seed = efx_seed(size, 0, it);
		if (efx_check(c->buf[BUF_DST].ptr, &p, seed, 0, false, c->err))
			return -1;
		efx_stamp(c->buf[BUF_SRC].ptr, &p, efx_seed(size, me, it) ^ REPLY, me);
		if (move(c, &p, 0, true, false))
			return -1;
		end = efx_now();
		bool full = it == 0 || it == total - 1;
		if (full && efx_check(c->buf[BUF_DST].ptr, &p, seed, 0, true, c->err))
			return -1;
	}
	s->elapsed_ns = end - start;
	s->bytes_sent = s->bytes_recv = size;
	efx_rail_bytes(c, s);
	efx_summarize(s, c->lat, c->cfg.iterations);
	efx_unstamp(c->buf[BUF_SRC].ptr, &p, me);
	return 0;
}

static int pair(efx_ctx *c, uint64_t size, int peer, efx_sample *s)
{
	return c->info->rank == 0 ? initiator(c, size, peer, s) : responder(c, size, s);
}

static int run(efx_ctx *c, uint64_t size, efx_sample *out, int *n)
{
	return efx_each_peer(c, size, out, n, pair);
}

const efx_bench efx_sendrecv = {.name = "sendrecv", .min_ranks = 2, .open = efx_open_fabric, .run = run};
