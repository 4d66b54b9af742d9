/*
 * sendrecv.c: two-sided ping-pong between rank 0 and one peer.
 *
 * Each iteration rank 0 sends its buffer in chunks (window in flight); the
 * peer receives it, checks the stamps and sends its own buffer back. One
 * iteration is one round trip, in which each rank sends and receives the size
 * once. Full checks run after the reply is on its way, off the clock.
 */
#include "efx.h"

#define REPLY 0x5245504c59ULL /* "REPLY": the answer's seed differs from the question's */

/* move sends the first size bytes of src, receives size bytes into dst, or both at once. */
static int move(efx_ctx *c, uint64_t size, int peer, bool send, bool recv)
{
	uint64_t chunk = c->cfg.chunk, n = (size + chunk - 1) / chunk;
	uint64_t sent = 0, posted = 0, rx0 = c->rx_done;
	while ((send && sent < n) || (recv && c->rx_done - rx0 < n)) {
		if (recv && posted < n && posted - (c->rx_done - rx0) < c->cfg.window) {
			uint64_t off = posted++ * chunk;
			if (efx_post_recv(c, c->dst.ptr + off, size - off < chunk ? size - off : chunk))
				return -1;
		} else if (send && sent < n && c->tx_posted - c->tx_done < c->cfg.window) {
			uint64_t off = sent++ * chunk;
			if (efx_post_send(c, c->src.ptr + off, size - off < chunk ? size - off : chunk, peer))
				return -1;
		} else if (efx_progress(c) < 0 || efx_stalled(c, recv ? "the peer's message" : "send completions")) {
			return -1;
		}
	}
	return efx_wait_tx(c, 0, "send completions");
}

static int initiator(efx_ctx *c, uint64_t size, int peer, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int64_t start = 0, end = 0;
	if (efx_pair_sync(c, peer))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_pair_sync(c, peer))
				return -1;
			start = efx_now();
		}
		uint64_t seed = efx_seed(size, peer, it);
		efx_stamp(c->src.ptr, size, c->cfg.chunk, seed, 0);
		bool hook = size == c->cfg.corrupt_size && it == total - 1;
		if (hook)
			efx_corrupt(c->src.ptr, size);
		int64_t t0 = efx_now();
		if (move(c, size, peer, true, true))
			return -1;
		end = efx_now();
		if (it >= w)
			c->lat[it - w] = end - t0;
		if (hook)
			efx_corrupt(c->src.ptr, size);
		bool full = it == 0 || it == total - 1;
		if (efx_check(c->dst.ptr, size, c->cfg.chunk, seed ^ REPLY, peer, full, c->err))
			return -1;
	}
	s->elapsed_ns = end - start;
	s->bytes_sent = s->bytes_recv = size;
	efx_summarize(s, c->lat, c->cfg.iterations);
	efx_unstamp(c->src.ptr, size, c->cfg.chunk, 0);
	return 0;
}

static int responder(efx_ctx *c, uint64_t size, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int me = c->info->rank;
	int64_t start = 0, prev = 0, end = 0;
	if (efx_pair_sync(c, 0))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_pair_sync(c, 0))
				return -1;
			start = prev = efx_now();
		}
		uint64_t seed = efx_seed(size, me, it);
		bool full = it == 0 || it == total - 1;
		if (move(c, size, 0, false, true))
			return -1;
		int64_t landed = efx_now();
		if (it >= w) {
			c->lat[it - w] = landed - prev;
			prev = landed;
		}
		if (efx_check(c->dst.ptr, size, c->cfg.chunk, seed, 0, false, c->err))
			return -1;
		efx_stamp(c->src.ptr, size, c->cfg.chunk, seed ^ REPLY, me);
		if (move(c, size, 0, true, false))
			return -1;
		end = efx_now();
		if (full && efx_check(c->dst.ptr, size, c->cfg.chunk, seed, 0, true, c->err))
			return -1;
	}
	s->elapsed_ns = end - start;
	s->bytes_sent = s->bytes_recv = size;
	efx_summarize(s, c->lat, c->cfg.iterations);
	efx_unstamp(c->src.ptr, size, c->cfg.chunk, me);
	return 0;
}

int efx_sendrecv(efx_ctx *c, uint64_t size, int peer, efx_sample *out)
{
	int rc = c->info->rank == 0 ? initiator(c, size, peer, out) : responder(c, size, out);
	return rc ? -1 : 1;
}
