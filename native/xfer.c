/*
 * xfer.c: moving one buffer to (or from) several peers over several rails.
 *
 * A plan cuts the buffer into ops of at most chunk bytes; with the split
 * strategy it first cuts it into one slice per rail. A strategy then puts
 * each op on a rail:
 *
 *   single       rail 0
 *   split        op of slice s on rail s: the slices travel together
 *   round-robin  every op to peer d on rail (d + own rank) mod rails
 *   per-op       op k on rail k mod rails
 *   adaptive     each op, when it is posted, to the rail with the most free
 *                window: a slow or congested NIC completes less, so it is
 *                offered less
 *
 * The first four are fixed, so a two-sided receiver posts its receives on
 * the rail each send will arrive on, in the same order. Adaptive is for
 * one-sided writes only, whose target counts landings on every rail.
 */
#include <string.h>

#include "efx.h"

void efx_plan_init(efx_plan *p, uint64_t size, uint64_t chunk, uint32_t slices)
{
	p->size = size;
	p->chunk = chunk;
	p->slices = slices ? slices : 1;
	uint64_t base = (size + p->slices - 1) / p->slices;
	p->base = p->slices == 1 ? size : (base + 63) & ~(uint64_t)63; /* slices start on a cache line */
	p->per_slice = (p->base + chunk - 1) / chunk;
	p->n = 0;
	for (uint32_t s = 0; s < p->slices && (uint64_t)s * p->base < size; s++) {
		uint64_t end = (uint64_t)(s + 1) * p->base;
		p->n += ((end < size ? end : size) - (uint64_t)s * p->base + chunk - 1) / chunk;
	}
}

/* efx_plan_op gives op k's place in the buffer. */
void efx_plan_op(const efx_plan *p, uint64_t k, uint64_t *off, uint64_t *len)
{
	uint64_t s = k / p->per_slice, j = k % p->per_slice;
	uint64_t end = (s + 1) * p->base;
	if (end > p->size)
		end = p->size;
	*off = s * p->base + j * p->chunk;
	*len = end - *off < p->chunk ? end - *off : p->chunk;
}

/* efx_plan_for makes the plan of one buffer of size under c's strategy. */
void efx_plan_for(efx_ctx *c, efx_plan *p, uint64_t size)
{
	efx_plan_init(p, size, c->cfg.chunk, c->cfg.strategy == EFX_SPLIT ? c->nrails : 1);
}

/* efx_stream_rail is the rail that ranks a and b use under single or
 * round-robin; the same from both ends. */
uint32_t efx_stream_rail(const efx_ctx *c, int a, int b)
{
	return c->cfg.strategy == EFX_ROUND_ROBIN ? (uint32_t)(a + b) % c->nrails : 0;
}

/* Fixed strategies: the ops of a stream on rail r run from first to end by step. */
static uint64_t rail_first(const efx_ctx *c, const efx_xfer *x, const efx_stream *s, uint32_t r)
{
	switch (c->cfg.strategy) {
	case EFX_SPLIT:
		return (uint64_t)r * x->plan->per_slice;
	case EFX_PER_OP:
		return r;
	case EFX_ADAPTIVE:
		return UINT64_MAX;
	}
	return r == s->rail ? 0 : UINT64_MAX;
}

static uint64_t rail_end(const efx_ctx *c, const efx_xfer *x, uint32_t r)
{
	uint64_t n = x->plan->n;
	if (c->cfg.strategy == EFX_SPLIT && (uint64_t)(r + 1) * x->plan->per_slice < n)
		return (uint64_t)(r + 1) * x->plan->per_slice;
	return n;
}

static uint32_t room(const efx_xfer *x, const efx_rail *r)
{
	uint32_t used = x->kind == OP_RECV ? r->rx_inflight : r->tx_inflight;
	return used < x->window ? x->window - used : 0;
}

/* window is how many ops a rail may have in flight for x. Adaptive keeps
 * it to a quarter of a rail's fair share of the buffer: posted ops are
 * committed to their rail, so a deep window would hand a slow rail as much
 * as the others before its slowness shows. */
static uint32_t window(const efx_ctx *c, const efx_xfer *x)
{
	if (c->cfg.strategy != EFX_ADAPTIVE)
		return c->cfg.window;
	uint64_t share = (x->plan->n * x->nstreams + 4 * c->nrails - 1) / (4 * c->nrails);
	return share < 1 ? 1 : share < c->cfg.window ? (uint32_t)share : c->cfg.window;
}

/* freest picks the rail for x's next op under adaptive: the one that would
 * finish it first, judged by what each rail has queued and how fast it has
 * been completing (earliest finish time). When that rail's window is full
 * it returns -1, and the op waits for it rather than go to a rail that
 * would finish it later: that is what keeps a slow rail's queue short at
 * the end of a buffer. Rails not yet timed count as the fastest. */
static int freest(efx_ctx *c, const efx_xfer *x)
{
	double fastest = 0;
	for (uint32_t j = 0; j < c->nrails; j++)
		if (c->rail[j].ns_per_byte > 0 && (fastest == 0 || c->rail[j].ns_per_byte < fastest))
			fastest = c->rail[j].ns_per_byte;
	int best = -1;
	double soonest = 0;
	for (uint32_t i = 0; i < c->nrails; i++) {
		uint32_t j = (c->rr_next + i) % c->nrails;
		const efx_rail *r = &c->rail[j];
		double speed = r->ns_per_byte > 0 && r->tx_inflight > 0 ? r->ns_per_byte : fastest;
		double finish = (double)(r->tx_inflight + 1) * speed;
		if (best < 0 || finish < soonest) {
			best = (int)j;
			soonest = finish;
		}
	}
	if (room(x, &c->rail[best]) == 0)
		return -1;
	c->rr_next = (uint32_t)best + 1;
	return best;
}

static int post_op(efx_ctx *c, efx_xfer *x, efx_stream *s, uint64_t k, uint32_t rail)
{
	uint64_t off, len;
	efx_plan_op(x->plan, k, &off, &len);
	efx_rail *r = &c->rail[rail];
	efx_op *op = efx_take(r);
	op->kind = x->kind;
	op->peer = s->peer;
	op->buf = x->buf + off;
	op->len = len;
	op->done = &x->done;
	x->posted++;
	op->inject = false;
	op->edges = NULL;
	op->redges = 0;
	if (x->kind == OP_RECV) {
		op->desc = r->desc[BUF_DST];
		r->rx_inflight++;
	} else {
		op->desc = r->desc[BUF_SRC];
		op->raddr = r->remote[s->peer].addr + s->remote_off + off;
		op->data = x->data;
		/* adaptive reads a rail's speed from its completions: they must
		 * mean delivered, not queued in a socket buffer */
		op->delivered = c->cfg.strategy == EFX_ADAPTIVE;
		op->posted_at = c->cfg.strategy == EFX_ADAPTIVE ? efx_now() : 0;
		/* a small send or write is copied at post and has no completion to
		 * reap; not from GPU memory, which a provider's copy cannot read */
		op->edges = x->edges ? x->edges + k * EFX_EDGE : NULL;
		if (x->kind == OP_WRITE && op->edges && s->edges_off)
			op->redges = r->remote[s->peer].addr + s->edges_off + k * EFX_EDGE;
		op->inject = !op->delivered && !op->edges && len <= r->inject_size && c->cfg.memory != EFX_MEMORY_DEVICE;
		r->tx_inflight++;
		c->rail_bytes[rail] += len;
	}
	return efx_post(c, op);
}

/* fill_stream posts at most one op of s on each rail that has room; it
 * returns how many it posted, or -1. */
static int fill_stream(efx_ctx *c, efx_xfer *x, efx_stream *s)
{
	if (c->cfg.strategy == EFX_ADAPTIVE) {
		if (s->next >= x->plan->n)
			return 0;
		int r = freest(c, x);
		if (r < 0)
			return 0;
		return post_op(c, x, s, s->next++, (uint32_t)r) ? -1 : 1;
	}
	int posted = 0;
	uint64_t step = c->cfg.strategy == EFX_PER_OP ? c->nrails : 1;
	for (uint32_t r = 0; r < c->nrails; r++) {
		if (s->cur[r] >= rail_end(c, x, r) || room(x, &c->rail[r]) == 0)
			continue;
		if (post_op(c, x, s, s->cur[r], r))
			return -1;
		s->cur[r] += step;
		posted++;
	}
	return posted;
}

/* efx_xfer_fill posts every op of x the windows allow, a round of one op
 * per stream and rail at a time, so that streams share the rails evenly.
 * Posting a whole round before reading the CQs again is the batching that
 * pays on EFA. Transfers in flight together share the rails' windows:
 * filled oldest first, the oldest finishes first. */
int efx_xfer_fill(efx_ctx *c, efx_xfer *x)
{
	if (x->posted == (uint64_t)x->nstreams * x->plan->n)
		return 0; /* the hot wait for the last completions does no more */
	for (;;) {
		int round = 0;
		for (uint32_t i = 0; i < x->nstreams; i++) {
			int n = fill_stream(c, x, &x->streams[i]);
			if (n < 0)
				return -1;
			round += n;
		}
		if (round == 0)
			return 0;
	}
}

/* efx_xfer_start readies x to post from its first op. */
void efx_xfer_start(efx_ctx *c, efx_xfer *x)
{
	x->done = x->posted = 0;
	x->window = window(c, x);
	for (uint32_t i = 0; i < x->nstreams; i++) {
		efx_stream *s = &x->streams[i];
		s->next = 0;
		for (uint32_t r = 0; r < c->nrails; r++)
			s->cur[r] = rail_first(c, x, s, r);
	}
}

/* efx_xfer_run posts every op of the transfers xs and waits until all have
 * completed locally. Hot loop: fill, then read the CQs, until done. */
int efx_xfer_run(efx_ctx *c, efx_xfer *xs, int nx, const char *what)
{
	for (int i = 0; i < nx; i++)
		efx_xfer_start(c, &xs[i]);
	for (;;) {
		bool done = true;
		for (int i = 0; i < nx; i++) {
			if (efx_xfer_fill(c, &xs[i]))
				return -1;
			done &= efx_xfer_done(&xs[i]);
		}
		if (done)
			return 0;
		if (efx_progress(c) < 0 || efx_stalled(c, what))
			return -1;
	}
}
