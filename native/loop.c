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

/* size_by_time chooses, under a duration, how long the size runs, in two
 * steps, from per, the time of an iteration of the part of the warm-up
 * just run, up to the meeting that ends it (ns): after the first
 * warm-up iterations, which pay for cold caches and connections, more
 * warm-up worth a tenth of the duration (at least as many again, done);
 * after those, the duration's worth of timed iterations (at least 1). At
 * most EFX_MAX_ITERATIONS each. Rank 0 decides and the other ranks of the
 * loop take its numbers, so a size's warm-up and count depend on the size,
 * not on the sweep around it. */
static int size_by_time(efx_loop *l, int step, uint64_t done, double per)
{
	efx_ctx *c = l->c;
	uint64_t v = 0;
	if (c->info->rank == 0) {
		double want = (double)c->cfg.duration_ns / (step == 0 ? 10 : 1) / (per > 0 ? per : 1);
		double least = step == 0 ? (double)(done ? done : 1) : 1;
		v = want < least ? (uint64_t)least : want < EFX_MAX_ITERATIONS ? (uint64_t)want : EFX_MAX_ITERATIONS;
	}
	if (efx_agree(c, l->all ? -1 : l->peer, &v, 1))
		return -1;
	if (step == 0)
		l->warmup += v;
	l->total = l->warmup + (step == 0 ? 1 : v);
	return 0;
}

/* efx_loop_run runs side's warm-up and timed iterations of l->size
 * against l->peer and fills s: elapsed time, latencies, rail counts, and
 * what side->finish adds. Under a duration the warm-up is timed first,
 * and the ends agree on the rest (size_by_time). Hot loop: between the
 * clock reads there is only the side's iteration. */
int efx_loop_run(const efx_side *side, efx_loop *l, efx_sample *s)
{
	efx_ctx *c = l->c;
	int me = c->info->rank;
	int step = c->cfg.duration_ns > 0 ? 0 : 2; /* the steps of size_by_time to come: none without a duration */
	int64_t start = 0, prev = 0, end = 0;
	efx_plan_for(c, &l->plan, l->size);
	l->warmup = step == 2 || c->cfg.warmup ? c->cfg.warmup : 1; /* under a duration, one at least, to time */
	l->total = l->warmup + (step == 2 ? c->cfg.iterations : 1);
	l->first = UINT64_MAX;
	if ((side->start && side->start(l)) || side->sync(l, 0))
		return -1;
	uint64_t met = UINT64_MAX, from = 0; /* where the ends last met while sizing; the part of the warm-up timed */
	int64_t began = efx_now();
	for (uint64_t it = 0; it < l->total; it++) {
		if (it == l->warmup && step < 2) {
			/* a part of the warm-up ends when the ends meet: nothing in flight */
			if (side->sync(l, it) || size_by_time(l, step, it, (double)(efx_now() - began) / (double)(it - from)))
				return -1;
			step++;
			met = from = it;
			began = efx_now();
		}
		if (it == l->warmup) {
			if (it != met && side->sync(l, it))
				return -1;
			efx_reset_counts(c);
			l->first = it;
			start = prev = efx_now();
		}
		if (side->ready && side->ready(l, it))
			return -1;
		bool hook = false; /* the test hook: rank 0 damages the last iteration it sends, and a check must fail */
		if (side->stamps) {
			l->src = efx_src_slot(c, it);
			if (efx_mem_stamp(c, l->src, &l->plan, efx_seed(l->size, me, it), me))
				return -1;
			hook = me == 0 && l->size == c->cfg.corrupt_size && it == l->total - 1;
			if (hook && efx_mem_corrupt(c, l->src, l->size))
				return -1;
		}
		l->landed = 0;
		int64_t t0 = side->lands ? 0 : efx_now(); /* a landing clock reads the time once per iteration */
		if (side->iteration(l, it))
			return -1;
		end = efx_now();
		if (it >= l->first && !side->times && side->lands) {
			int64_t at = l->landed ? l->landed : end;
			c->lat[it - l->first] = at - prev;
			prev = at;
		} else if (it >= l->first && !side->times) {
			c->lat[it - l->first] = end - t0;
		}
		if (hook && efx_mem_corrupt(c, l->src, l->size)) /* undone: the next size starts from a clean buffer */
			return -1;
		if (side->verify && side->verify(l, it))
			return -1;
	}
	s->elapsed_ns = end - start;
	efx_take_counts(c, s);
	efx_summarize(s, c->lat, l->total - l->first);
	if (side->stamps) /* the next size's stamps fall elsewhere */
		for (uint32_t i = 0; i < c->src_n; i++)
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
