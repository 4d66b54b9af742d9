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
#include <stdlib.h>
#include <string.h>

#include "efx.h"

/* The benchmark's state: a stream to each other rank. */
typedef struct all2all {
	efx_stream *streams;
	uint32_t n;
} all2all;

static int wait_all_slots(efx_ctx *c, uint64_t v)
{
	for (int p = 0; p < c->info->world; p++)
		if (p != c->info->rank && efx_wait_acks(c, p, v))
			return -1;
	return 0;
}

static int start(efx_loop *l)
{
	efx_ctx *c = l->c;
	all2all *a = l->state;
	int me = c->info->rank;
	efx_set_slots(c, l->size, 2);
	a->n = 0;
	for (int q = 0; q < c->info->world; q++) {
		c->acked[q] = c->landed[q] = 0;
		if (q != me)
			a->streams[a->n++] = (efx_stream){.peer = q, .rail = efx_stream_rail(c, me, q)};
	}
	return 0;
}

/* sync meets every rank once every peer has verified it iterations. */
static int sync_all(efx_loop *l, uint64_t it) { return wait_all_slots(l->c, it) || efx_barrier(l->c) ? -1 : 0; }

/* ready waits until every peer has verified the last user of iteration it's slot. */
static int ready(efx_loop *l, uint64_t it)
{
	uint32_t slots = l->c->nslots;
	return wait_all_slots(l->c, it >= slots ? it - slots + 1 : 0);
}

/* exchange writes iteration it to every peer and waits for every peer's iteration it. */
static int exchange(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	all2all *a = l->state;
	int me = c->info->rank;
	uint64_t slot_off = efx_slot_off(c, l->size, it);
	for (uint32_t i = 0; i < a->n; i++)
		a->streams[i].remote_off = (uint64_t)efx_region(me, a->streams[i].peer) * c->region_len + slot_off;
	efx_xfer x = {.kind = OP_WRITE, .plan = &l->plan, .buf = l->src, .data = EFX_DATA(me, it),
		      .nstreams = a->n, .streams = a->streams};
	if (efx_xfer_run(c, &x, 1, "write completions"))
		return -1;
	for (int q = 0; q < c->info->world; q++)
		if (q != me && efx_wait_landed(c, q, l->plan.n, it))
			return -1;
	return 0;
}

/* verify checks every peer's iteration it and acks it when due. */
static int verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	int me = c->info->rank;
	uint64_t ack_every = c->nslots > 4 ? c->nslots / 4 : 1;
	bool full = it == 0 || it == l->total - 1;
	bool ack = (it + 1) % ack_every == 0 || it + 1 == l->warmup || it + 1 == l->total;
	for (int q = 0; q < c->info->world; q++) {
		if (q == me)
			continue;
		const uint8_t *buf = c->buf[BUF_DST].ptr + (uint64_t)efx_region(q, me) * c->region_len +
				     efx_slot_off(c, l->size, it);
		if (efx_mem_check(c, buf, &l->plan, efx_seed(l->size, q, it), q, full))
			return -1;
		if (ack && efx_send_ack(c, q, it + 1, false))
			return -1;
	}
	return 0;
}

static int finish(efx_loop *l, efx_sample *s)
{
	const all2all *a = l->state;
	s->bytes_sent = s->bytes_recv = l->size * a->n;
	return wait_all_slots(l->c, l->total);
}

static const efx_side every_rank = {.start = start, .sync = sync_all, .ready = ready, .iteration = exchange,
				    .verify = verify, .finish = finish, .stamps = true};

static int all2all_open(efx_ctx *c, void **state)
{
	all2all *a = calloc(1, sizeof *a);
	if (a)
		a->streams = calloc((size_t)c->info->world, sizeof *a->streams);
	*state = a;
	if (!a || !a->streams)
		return efx_fail(c->err, "all2all: out of memory");
	return efx_fabric_open(c, (efx_net){.acks = true, .every_sender = true});
}

static int all2all_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	efx_sample *s = &out[0];
	s->peer = c->info->world == 2 ? 1 - c->info->rank : -1;
	s->role = EFX_ROLE_BOTH;
	efx_loop l = {.c = c, .state = state, .size = size, .peer = -1, .all = true};
	if (efx_loop_run(&every_rank, &l, s))
		return -1;
	*n = 1;
	return 0;
}

static void all2all_close(efx_ctx *c, void *state)
{
	all2all *a = state;
	if (a)
		free(a->streams);
	free(a);
}

const efx_bench efx_all2all = {.name = "all2all", .open = all2all_open, .run = all2all_run,
			       .close = all2all_close};
