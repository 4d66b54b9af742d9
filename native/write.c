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
#include <stdlib.h>
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

static int write_sync(efx_ctx *c, const efx_stream *s, uint32_t ns)
{
	for (uint32_t i = 0; i < ns; i++)
		if (efx_pair_sync(c, s[i].peer))
			return -1;
	return 0;
}

static int initiator_start(efx_loop *l)
{
	const efx_writer *w = l->state;
	efx_set_slots(l->c, l->size);
	for (uint32_t i = 0; i < w->n; i++)
		l->c->acked[w->streams[i].peer] = 0;
	return 0;
}

/* initiator_sync meets every target once it has verified it iterations. */
static int initiator_sync(efx_loop *l, uint64_t it)
{
	const efx_writer *w = l->state;
	return efx_write_slots(l->c, w->streams, w->n, it) || write_sync(l->c, w->streams, w->n) ? -1 : 0;
}

/* initiator_ready waits until the slot of iteration it has been verified by its last user. */
static int initiator_ready(efx_loop *l, uint64_t it)
{
	const efx_writer *w = l->state;
	uint32_t slots = l->c->nslots;
	return efx_write_slots(l->c, w->streams, w->n, it >= slots ? it - slots + 1 : 0);
}

static int initiator_iteration(efx_loop *l, uint64_t it)
{
	efx_writer *w = l->state;
	return efx_write_iteration(l->c, &l->plan, w->streams, w->n, it, l->size, l->src);
}

static int initiator_finish(efx_loop *l, efx_sample *s)
{
	const efx_writer *w = l->state;
	s->bytes_sent = l->size * w->n;
	return efx_write_slots(l->c, w->streams, w->n, l->total);
}

/* efx_write_initiator is rank 0's side: it writes each iteration to the
 * streams of its efx_writer state and times post to local completion. */
const efx_side efx_write_initiator = {.start = initiator_start, .sync = initiator_sync, .ready = initiator_ready,
				      .iteration = initiator_iteration, .finish = initiator_finish, .stamps = true};

static int target_start(efx_loop *l)
{
	efx_set_slots(l->c, l->size);
	return 0;
}

static int target_sync(efx_loop *l, uint64_t it) { return efx_pair_sync(l->c, 0); }

static int target_iteration(efx_loop *l, uint64_t it) { return efx_wait_landed(l->c, 0, l->plan.n, it); }

/* target_verify checks iteration it in its slot and acks it when due. */
static int target_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	const uint8_t *region = c->buf[BUF_DST].ptr + (uint64_t)efx_region(0, c->info->rank) * c->region_len;
	const uint8_t *buf = region + (it & (c->nslots - 1)) * efx_stride(l->size);
	bool full = it == 0 || it == l->total - 1;
	if (efx_mem_check(c, buf, &l->plan, efx_seed(l->size, 0, it), 0, full))
		return -1;
	uint64_t ack_every = c->nslots > 4 ? c->nslots / 4 : 1; /* fewer acks, the same guarantee */
	bool ack = (it + 1) % ack_every == 0 || it + 1 == c->cfg.warmup || it + 1 == l->total;
	return ack ? efx_send_ack(c, 0, it + 1) : 0;
}

static int target_finish(efx_loop *l, efx_sample *s)
{
	s->bytes_recv = l->size;
	return 0;
}

/* efx_write_target is a peer's side: it times one landing to the next,
 * and checks and acks each iteration between them. */
const efx_side efx_write_target = {.start = target_start, .sync = target_sync, .iteration = target_iteration,
				   .verify = target_verify, .finish = target_finish, .lands = true};

static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *s)
{
	efx_writer *w = state;
	efx_loop l = {.c = c, .state = w, .size = size, .peer = peer};
	if (c->info->rank != 0)
		return efx_loop_run(&efx_write_target, &l, s) ? -1 : 1;
	w->streams[0] = (efx_stream){.peer = peer, .rail = efx_stream_rail(c, 0, peer)};
	w->n = 1;
	return efx_loop_run(&efx_write_initiator, &l, s) ? -1 : 1;
}

/* all_at_once is round-robin: rank 0 writes to every peer together. */
static int all_at_once(efx_ctx *c, efx_writer *w, uint64_t size, efx_sample *s)
{
	efx_loop l = {.c = c, .state = w, .size = size, .peer = 0};
	if (c->info->rank != 0) {
		s->peer = 0;
		s->role = EFX_ROLE_TARGET;
		return efx_loop_run(&efx_write_target, &l, s);
	}
	w->n = (uint32_t)c->info->world - 1;
	for (uint32_t i = 0; i < w->n; i++)
		w->streams[i] = (efx_stream){.peer = (int)i + 1, .rail = efx_stream_rail(c, 0, (int)i + 1)};
	s->peer = l.peer = w->n == 1 ? 1 : -1;
	s->role = EFX_ROLE_INITIATOR;
	return efx_loop_run(&efx_write_initiator, &l, s);
}

static int write_open(efx_ctx *c, void **state)
{
	efx_writer *w = calloc(1, sizeof *w);
	if (w)
		w->streams = calloc((size_t)c->info->world, sizeof *w->streams);
	*state = w;
	if (!w || !w->streams)
		return efx_fail(c->err, "write: out of memory");
	return efx_fabric_open(c, (efx_net){.acks = true});
}

static int write_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	if (c->cfg.strategy != EFX_ROUND_ROBIN)
		return efx_each_peer(c, state, size, out, n, pair);
	if (all_at_once(c, state, size, &out[0]))
		return -1;
	*n = 1;
	return 0;
}

static void write_close(efx_ctx *c, void *state)
{
	efx_writer *w = state;
	if (w)
		free(w->streams);
	free(w);
}

const efx_bench efx_write = {.name = "write", .open = write_open, .run = write_run, .close = write_close};
