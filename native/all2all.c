/*
 * all2all.c: every rank writes its buffer to every other rank at once.
 *
 * Each iteration every rank stamps its buffer, writes it to all peers
 * (streams spread over the rails by the strategy; round-robin puts peer d
 * on rail (d + own rank) mod rails so that senders do not all pile onto one
 * rail), waits for its own writes to complete and for every peer's writes
 * to land in that peer's region of its buffer, checks each, and acks each
 * sender. Slots and acks work as in write.c, per pair.
 *
 * Timing: one iteration runs from this rank's first post until the last
 * peer's data has landed here; the timed phase starts after a barrier.
 */
#include <string.h>

#include "efx.h"

static int wait_all_slots(efx_ctx *c, uint64_t v)
{
	for (int p = 0; p < c->info->world; p++)
		if (p != c->info->rank && efx_wait_acks(c, p, v))
			return -1;
	return 0;
}

/* exchange writes iteration it to every peer and waits for every peer's iteration it. */
static int exchange(efx_ctx *c, const efx_plan *p, uint32_t ns, uint64_t it, uint64_t size)
{
	int me = c->info->rank;
	uint64_t slot_off = (it & (c->nslots - 1)) * efx_stride(size);
	for (uint32_t i = 0; i < ns; i++)
		c->streams[i].remote_off = (uint64_t)efx_region(me, c->streams[i].peer) * c->region_len + slot_off;
	efx_xfer x = {.kind = OP_WRITE, .plan = p, .buf = c->buf[BUF_SRC].ptr, .data = EFX_DATA(me, it),
		      .nstreams = ns, .streams = c->streams};
	if (efx_xfer_run(c, &x, 1, "write completions"))
		return -1;
	for (int q = 0; q < c->info->world; q++)
		if (q != me && efx_wait_landed(c, q, p->n, it))
			return -1;
	return 0;
}

/* verify checks every peer's iteration it and acks it when due. */
static int verify(efx_ctx *c, const efx_plan *p, uint64_t it, uint64_t total, uint64_t size)
{
	int me = c->info->rank;
	uint64_t w = c->cfg.warmup, ack_every = c->nslots > 4 ? c->nslots / 4 : 1;
	bool full = it == 0 || it == total - 1;
	bool ack = (it + 1) % ack_every == 0 || it + 1 == w || it + 1 == total;
	for (int q = 0; q < c->info->world; q++) {
		if (q == me)
			continue;
		const uint8_t *buf = c->buf[BUF_DST].ptr + (uint64_t)efx_region(q, me) * c->region_len +
				     (it & (c->nslots - 1)) * efx_stride(size);
		if (efx_check(buf, p, efx_seed(size, q, it), q, full, c->err))
			return -1;
		if (ack && efx_send_ack(c, q, it + 1))
			return -1;
	}
	return 0;
}

static int measure(efx_ctx *c, uint64_t size, efx_sample *s)
{
	int me = c->info->rank;
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	uint32_t ns = 0;
	int64_t start = 0, end = 0;
	efx_plan p;
	efx_plan_for(c, &p, size);
	efx_set_slots(c, size);
	for (int q = 0; q < c->info->world; q++) {
		c->acked[q] = 0;
		if (q != me)
			c->streams[ns++] = (efx_stream){.peer = q, .rail = efx_stream_rail(c, me, q)};
	}
	if (efx_barrier(c))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (wait_all_slots(c, w) || efx_barrier(c))
				return -1;
			efx_reset_counts(c);
			start = efx_now();
		}
		if (wait_all_slots(c, it >= c->nslots ? it - c->nslots + 1 : 0))
			return -1;
		efx_stamp(c->buf[BUF_SRC].ptr, &p, efx_seed(size, me, it), me);
		bool hook = me == 0 && size == c->cfg.corrupt_size && it == total - 1;
		if (hook)
			efx_corrupt(c->buf[BUF_SRC].ptr, size);
		int64_t t0 = efx_now();
		if (exchange(c, &p, ns, it, size))
			return -1;
		end = efx_now();
		if (it >= w)
			c->lat[it - w] = end - t0;
		if (hook)
			efx_corrupt(c->buf[BUF_SRC].ptr, size);
		if (verify(c, &p, it, total, size))
			return -1;
	}
	s->elapsed_ns = end - start;
	s->bytes_sent = s->bytes_recv = size * ns;
	efx_rail_bytes(c, s);
	efx_summarize(s, c->lat, c->cfg.iterations);
	efx_unstamp(c->buf[BUF_SRC].ptr, &p, me);
	return wait_all_slots(c, total);
}

static int run(efx_ctx *c, uint64_t size, efx_sample *out, int *n)
{
	efx_sample *s = &out[0];
	*n = 1; /* efx_run reports no sample of a size that failed */
	s->peer = c->info->world == 2 ? 1 - c->info->rank : -1;
	s->role = EFX_ROLE_BOTH;
	return measure(c, size, s);
}

const efx_bench efx_all2all = {.name = "all2all", .min_ranks = 2, .acks = true, .all_senders = true, .open = efx_open_fabric, .run = run};
