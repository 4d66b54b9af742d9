/*
 * write.c: one-sided RDMA write from rank 0 to one peer.
 *
 * The initiator cuts the buffer into chunks and keeps up to window
 * fi_writedata operations in flight. Each carries its iteration as remote CQ
 * data, so the target learns from its own CQ when every chunk of an
 * iteration has landed; it checks the stamps and acks. The target's buffer
 * is cut into slots (as many as fit, up to EFX_MAX_SLOTS): iteration i lands
 * in slot i % nslots, and the initiator waits for the ack of that slot's last
 * user first, so it never overwrites data that has not been verified, while
 * small messages still stream nslots deep.
 *
 * Timing: the initiator times post-to-local-completion per iteration and the
 * whole timed phase up to the last local completion (as Libefaxx does); the
 * target times landing to landing. The full check of the last iteration and
 * the final ack happen after both clocks stop.
 */
#include <string.h>

#include "efx.h"

static void set_slots(efx_ctx *c, uint64_t size)
{
	uint64_t n = c->dst.len / efx_stride(size);
	c->nslots = (uint32_t)(n < EFX_MAX_SLOTS ? n : EFX_MAX_SLOTS);
}

static int write_iteration(efx_ctx *c, uint64_t size, int peer, uint64_t it)
{
	uint64_t chunk = c->cfg.chunk;
	uint64_t slot_off = (it % c->nslots) * efx_stride(size);
	for (uint64_t off = 0; off < size; off += chunk) {
		uint64_t len = size - off < chunk ? size - off : chunk;
		if (efx_post_write(c, off, len, peer, slot_off, (uint32_t)it))
			return -1;
	}
	return efx_wait_tx(c, 0, "write completions");
}

static int wait_acks(efx_ctx *c, uint64_t n)
{
	while (c->acked < n)
		if (efx_progress(c) < 0 || efx_stalled(c, "the target's acknowledgement"))
			return -1;
	return 0;
}

static int initiator(efx_ctx *c, uint64_t size, int peer, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int64_t start = 0, end = 0;
	set_slots(c, size);
	c->acked = 0;
	if (efx_pair_sync(c, peer))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (wait_acks(c, w) || efx_pair_sync(c, peer))
				return -1;
			start = efx_now();
		}
		if (wait_acks(c, it >= c->nslots ? it - c->nslots + 1 : 0)) /* the slot is free */
			return -1;
		efx_stamp(c->src.ptr, size, c->cfg.chunk, efx_seed(size, peer, it), 0);
		bool hook = size == c->cfg.corrupt_size && it == total - 1;
		if (hook)
			efx_corrupt(c->src.ptr, size);
		int64_t t0 = efx_now();
		if (write_iteration(c, size, peer, it))
			return -1;
		end = efx_now();
		if (it >= w)
			c->lat[it - w] = end - t0;
		if (hook)
			efx_corrupt(c->src.ptr, size);
	}
	s->elapsed_ns = end - start;
	s->bytes_sent = size;
	efx_summarize(s, c->lat, c->cfg.iterations);
	efx_unstamp(c->src.ptr, size, c->cfg.chunk, 0);
	return wait_acks(c, total);
}

static int wait_landed(efx_ctx *c, uint32_t slot, uint64_t n, uint64_t it)
{
	while (c->wr_count[slot] < n)
		if (efx_progress(c) < 0 || efx_stalled(c, "remote writes to land"))
			return -1;
	if (c->wr_count[slot] != n || c->wr_tag[slot] != (uint32_t)it)
		return efx_fail(c->err, "iteration %llu: %llu writes tagged %u landed in slot %u, want %llu tagged %u",
				(unsigned long long)it, (unsigned long long)c->wr_count[slot], c->wr_tag[slot], slot,
				(unsigned long long)n, (uint32_t)it);
	c->wr_count[slot] = 0;
	return 0;
}

static int target(efx_ctx *c, uint64_t size, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	uint64_t n = (size + c->cfg.chunk - 1) / c->cfg.chunk;
	int me = c->info->rank;
	int64_t start = 0, prev = 0;
	set_slots(c, size);
	uint64_t ack_every = c->nslots > 4 ? c->nslots / 4 : 1; /* fewer acks, the same guarantee */
	memset(c->wr_count, 0, sizeof c->wr_count);
	if (efx_pair_sync(c, 0))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_pair_sync(c, 0))
				return -1;
			start = prev = efx_now();
		}
		uint32_t slot = (uint32_t)(it % c->nslots);
		if (wait_landed(c, slot, n, it))
			return -1;
		int64_t landed = efx_now();
		if (it >= w) {
			c->lat[it - w] = landed - prev;
			prev = landed;
		}
		const uint8_t *buf = c->dst.ptr + slot * efx_stride(size);
		bool full = it == 0 || it == total - 1;
		if (efx_check(buf, size, c->cfg.chunk, efx_seed(size, me, it), 0, full, c->err))
			return -1;
		bool ack = (it + 1) % ack_every == 0 || it + 1 == w || it + 1 == total;
		if (ack && efx_send_ack(c, 0, it + 1))
			return -1;
	}
	s->elapsed_ns = prev - start;
	s->bytes_recv = size;
	efx_summarize(s, c->lat, c->cfg.iterations);
	return 0;
}

int efx_write(efx_ctx *c, uint64_t size, int peer, efx_sample *out)
{
	int rc = c->info->rank == 0 ? initiator(c, size, peer, out) : target(c, size, out);
	return rc ? -1 : 1;
}
