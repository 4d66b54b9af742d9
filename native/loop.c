/*
 * loop.c: the timed loop every network benchmark runs, and the pairing of
 * ranks that pairwise benchmarks share.
 *
 * efx_loop_run owns what every measurement does the same way: the plan,
 * warm-up iterations, a meeting of both ends before the clock starts, the
 * reset of the rail counts, the clock, stamping the source and the
 * corruption hook, the per-iteration latency and the sample's summary. A
 * benchmark says what one rank does through an efx_side: its iteration
 * (on the clock), what it waits for before one and checks after one (off
 * the clock), and how it meets the other end.
 *
 * Two clocks, as the benchmarks have always measured: a rank that sends
 * times each iteration from its first post to its end; a rank that
 * receives (lands) times one arrival to the next, which counts its own
 * checks and acks between them, as the sender sees them. The timed phase
 * runs from the meeting at the end of the warm-up to the last iteration's
 * end.
 */
#include <string.h>

#include "efx.h"

/* efx_reset_counts starts the per-rail byte and requeue counts of a timed phase. */
void efx_reset_counts(efx_ctx *c)
{
	memset(c->rail_bytes, 0, sizeof c->rail_bytes);
	c->requeued = 0;
}

/* efx_take_counts copies the counts of the timed phase into s. */
void efx_take_counts(const efx_ctx *c, efx_sample *s)
{
	memcpy(s->rail_bytes, c->rail_bytes, sizeof s->rail_bytes);
	s->requeued = c->requeued;
}

/* efx_loop_run runs side's warm-up and timed iterations of l->size
 * against l->peer and fills s: elapsed time, latencies, rail counts, and
 * what side->finish adds. Hot loop: between the clock reads there is only
 * the side's iteration. */
int efx_loop_run(const efx_side *side, efx_loop *l, efx_sample *s)
{
	efx_ctx *c = l->c;
	int me = c->info->rank;
	uint64_t w = c->cfg.warmup, total = w + c->cfg.iterations;
	int64_t start = 0, prev = 0, end = 0;
	efx_plan_for(c, &l->plan, l->size);
	l->total = total;
	if ((side->start && side->start(l)) || side->sync(l, 0))
		return -1;
	for (uint64_t it = 0; it < total; it++) {
		if (it == w) {
			if (side->sync(l, w))
				return -1;
			efx_reset_counts(c);
			start = prev = efx_now();
		}
		if (side->ready && side->ready(l, it))
			return -1;
		bool hook = false; /* the test hook: rank 0 damages the last iteration it sends, and a check must fail */
		if (side->stamps) {
			l->src = efx_src_slot(c, it);
			if (efx_mem_stamp(c, l->src, &l->plan, efx_seed(l->size, me, it), me))
				return -1;
			hook = me == 0 && l->size == c->cfg.corrupt_size && it == total - 1;
			if (hook && efx_mem_corrupt(c, l->src, l->size))
				return -1;
		}
		l->landed = 0;
		int64_t t0 = side->lands ? 0 : efx_now(); /* a landing clock reads the time once per iteration */
		if (side->iteration(l, it))
			return -1;
		end = efx_now();
		if (it >= w && side->lands) {
			int64_t at = l->landed ? l->landed : end;
			c->lat[it - w] = at - prev;
			prev = at;
		} else if (it >= w) {
			c->lat[it - w] = end - t0;
		}
		if (hook && efx_mem_corrupt(c, l->src, l->size)) /* undone: the next size starts from a clean buffer */
			return -1;
		if (side->verify && side->verify(l, it))
			return -1;
	}
	s->elapsed_ns = end - start;
	efx_take_counts(c, s);
	efx_summarize(s, c->lat, c->cfg.iterations);
	if (side->stamps) /* the next size's stamps fall elsewhere */
		for (uint32_t i = 0; i < (c->src_slots ? c->src_slots : 1); i++)
			if (efx_mem_unstamp(c, efx_src_slot(c, i), &l->plan, me))
				return -1;
	return side->finish ? side->finish(l, s) : 0;
}

/* efx_each_peer runs a pairwise benchmark: rank 0 against each peer in
 * turn, the same samples on both ends; other ranks wait. Only samples
 * that completed are reported. */
int efx_each_peer(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n, efx_pair_fn *pair)
{
	int me = c->info->rank;
	for (int peer = 1; peer < c->info->world; peer++) {
		if (me != 0 && me != peer)
			continue;
		efx_sample *s = &out[*n];
		for (int k = 0; k < 2; k++) { /* a pair takes at most two samples (variants); out holds 2 * world */
			s[k].peer = me == 0 ? peer : 0;
			s[k].role = me == 0 ? EFX_ROLE_INITIATOR : EFX_ROLE_TARGET;
		}
		c->last_progress = efx_now();
		int got = pair(c, state, size, s[0].peer, s);
		if (got < 0)
			return -1;
		*n += got;
	}
	return 0;
}
