/*
 * write.c: one-sided RDMA write from rank 0 to its peers.
 *
 * Under single, split, per-op and adaptive rank 0 writes to each peer in
 * turn; under round-robin it writes to every peer at once, peer d's whole
 * buffer on rail d mod rails (the Libefaxx round-robin experiment).
 *
 * Each op carries the sender and iteration as remote CQ data, so a target
 * learns from its own CQs when every op of an iteration has landed, on
 * whatever rail; it checks the stamps and acks. The target's buffer is cut
 * into slots (as many as fit, at most the slots parameter): iteration i
 * lands in slot i mod nslots, and the initiator waits for the ack of that
 * slot's last user first, so it never overwrites data that has not been
 * verified, while small messages still stream nslots deep. One slot is the
 * one reused buffer of osu_bw and fi_rma_bw.
 *
 * Timing: the initiator times post-to-local-completion per iteration and the
 * whole timed phase up to the last local completion (as Libefaxx does); the
 * target times landing to landing. The full check of the last iteration and
 * the final ack happen after both clocks stop.
 */
#include <string.h>

#include "efx.h"

/* efx_write_iteration writes iteration it, from src, to every stream and
 * waits for local completion. */
int efx_write_iteration(efx_ctx *c, const efx_plan *p, efx_stream *s, uint32_t ns, uint64_t it, uint64_t size,
			uint8_t *src)
{
	uint64_t slot_off = (it & (c->nslots - 1)) * efx_stride(size);
	for (uint32_t i = 0; i < ns; i++)
		s[i].remote_off = (uint64_t)efx_region(0, s[i].peer) * c->region_len + slot_off;
	efx_xfer x = {.kind = OP_WRITE, .plan = p, .buf = src, .data = EFX_DATA(0, it), .nstreams = ns, .streams = s};
	return efx_xfer_run(c, &x, 1, "write completions");
}

/* efx_write_slots waits until every stream's target has verified v iterations. */
int efx_write_slots(efx_ctx *c, const efx_stream *s, uint32_t ns, uint64_t v)
{
	for (uint32_t i = 0; i < ns; i++)
		if (efx_wait_acks(c, s[i].peer, v))
			return -1;
	return 0;
}

int efx_write_sync(efx_ctx *c, const efx_stream *s, uint32_t ns)
{
	for (uint32_t i = 0; i < ns; i++)
		if (efx_pair_sync(c, s[i].peer))
			return -1;
	return 0;
}

int efx_write_initiator(efx_ctx *c, uint64_t size, efx_stream *s, uint32_t ns, efx_sample *out)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int64_t start = 0, end = 0;
	efx_plan p;
	efx_plan_for(c, &p, size);
	efx_set_slots(c, size);
	for (uint32_t i = 0; i < ns; i++)
		c->acked[s[i].peer] = 0;
	if (efx_write_sync(c, s, ns))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_write_slots(c, s, ns, w) || efx_write_sync(c, s, ns))
				return -1;
			efx_reset_counts(c);
			start = efx_now();
		}
		if (efx_write_slots(c, s, ns, it >= c->nslots ? it - c->nslots + 1 : 0))
			return -1;
		uint8_t *src = efx_src_slot(c, it);
		efx_stamp(src, &p, efx_seed(size, 0, it), 0);
		bool hook = size == c->cfg.corrupt_size && it == total - 1;
		if (hook)
			efx_corrupt(src, size);
		int64_t t0 = efx_now();
		if (efx_write_iteration(c, &p, s, ns, it, size, src))
			return -1;
		end = efx_now();
		if (it >= w)
			c->lat[it - w] = end - t0;
		if (hook)
			efx_corrupt(src, size);
	}
	out->elapsed_ns = end - start;
	out->bytes_sent = size * ns;
	efx_rail_bytes(c, out);
	efx_summarize(out, c->lat, c->cfg.iterations);
	for (uint64_t i = 0; i < (c->src_slots ? c->src_slots : 1); i++)
		efx_unstamp(efx_src_slot(c, i), &p, 0);
	return efx_write_slots(c, s, ns, total);
}

int efx_write_target(efx_ctx *c, uint64_t size, efx_sample *s)
{
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int me = c->info->rank;
	int64_t start = 0, prev = 0;
	efx_plan p;
	efx_plan_for(c, &p, size);
	efx_set_slots(c, size);
	const uint8_t *region = c->buf[BUF_DST].ptr + (uint64_t)efx_region(0, me) * c->region_len;
	uint64_t ack_every = c->nslots > 4 ? c->nslots / 4 : 1; /* fewer acks, the same guarantee */
	if (efx_pair_sync(c, 0))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (efx_pair_sync(c, 0))
				return -1;
			start = prev = efx_now();
		}
		if (efx_wait_landed(c, 0, p.n, it))
			return -1;
		int64_t landed = efx_now();
		if (it >= w) {
			c->lat[it - w] = landed - prev;
			prev = landed;
		}
		const uint8_t *buf = region + (it & (c->nslots - 1)) * efx_stride(size);
		bool full = it == 0 || it == total - 1;
		if (efx_check(buf, &p, efx_seed(size, 0, it), 0, full, c->err))
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

static int pair(efx_ctx *c, uint64_t size, int peer, efx_sample *s)
{
	if (c->info->rank != 0)
		return efx_write_target(c, size, s);
	efx_stream *st = &c->streams[0];
	*st = (efx_stream){.peer = peer, .rail = efx_stream_rail(c, 0, peer)};
	return efx_write_initiator(c, size, st, 1, s);
}

/* all_at_once is round-robin: rank 0 writes to every peer together. */
static int all_at_once(efx_ctx *c, uint64_t size, efx_sample *out, int *n)
{
	efx_sample *s = &out[0];
	c->last_progress = efx_now();
	*n = 1; /* efx_run reports no sample of a size that failed */
	if (c->info->rank != 0) {
		s->peer = 0;
		s->role = EFX_ROLE_TARGET;
		return efx_write_target(c, size, s);
	}
	uint32_t ns = (uint32_t)c->info->world - 1;
	for (uint32_t i = 0; i < ns; i++)
		c->streams[i] = (efx_stream){.peer = (int)i + 1, .rail = efx_stream_rail(c, 0, (int)i + 1)};
	s->peer = ns == 1 ? 1 : -1;
	s->role = EFX_ROLE_INITIATOR;
	return efx_write_initiator(c, size, c->streams, ns, s);
}

static int run(efx_ctx *c, uint64_t size, efx_sample *out, int *n)
{
	if (c->cfg.strategy == EFX_ROUND_ROBIN)
		return all_at_once(c, size, out, n);
	return efx_each_peer(c, size, out, n, pair);
}

const efx_bench efx_write = {.name = "write", .min_ranks = 2, .acks = true, .open = efx_open_fabric, .run = run};
