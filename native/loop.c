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

/* Parts of warm-up at most under a duration, before the timed ones. */
#define EFX_WARM_PARTS 6

/* size_by_time decides, under a duration, at the end of a part of the
 * warm-up (done iterations of it in elapsed ns, up to the meeting that
 * ends it, so that nothing is in flight) what comes next. The first part
 * pays for cold caches and connections and says little; a later one that
 * lasted a twentieth of the duration says how long an iteration takes,
 * and the duration's worth of timed iterations follows (at least 1). Until
 * then (at most EFX_WARM_PARTS parts) another part of warm-up follows,
 * worth a tenth of the duration at the last part's pace and at least
 * twice as long as it, so that a part slowed by a busy moment is followed
 * by a longer one, not by a short timed phase. At most EFX_MAX_ITERATIONS
 * each. Rank 0 decides and the other ranks of the loop take its numbers:
 * a size's warm-up and count depend on the size, not on the sweep around
 * it. It sets *timed when the timed iterations follow. */
static int size_by_time(efx_loop *l, int part, uint64_t done, int64_t elapsed, bool *timed)
{
	efx_ctx *c = l->c;
	uint64_t v[2] = {0, 0}; /* 1 when timed iterations follow, and how many iterations */
	if (c->info->rank == 0) {
		double per = (double)(elapsed > 0 ? elapsed : 1) / (double)(done ? done : 1);
		bool enough = (part > 0 && elapsed >= c->cfg.duration_ns / 20) || part + 1 >= EFX_WARM_PARTS;
		double want = (double)c->cfg.duration_ns / (enough ? 1 : 10) / per;
		double least = enough ? 1 : 2 * (double)(done ? done : 1);
		v[0] = enough;
		v[1] = want < least ? (uint64_t)least : want < EFX_MAX_ITERATIONS ? (uint64_t)want : EFX_MAX_ITERATIONS;
	}
	if (efx_agree(c, l->all ? -1 : l->peer, v, 2))
		return -1;
	*timed = v[0];
	if (!*timed)
		l->warmup += v[1];
	l->total = l->warmup + (*timed ? v[1] : 1);
	return 0;
}

/* stamp_hook is the second test hook: it damages the last stamp of the
 * iteration just stamped (the middle one, whose check is stamps only), in
 * its edge record or its source slot, as a stale or truncated op would
 * leave it. Nothing undoes it: the slot or record is stamped afresh
 * before it is sent again, and unstamped after the size. */
static int stamp_hook(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	if (!c->gather)
		return efx_mem_corrupt(c, l->src + l->size - 1, 1); /* flips the one byte it is given */
	uint64_t off, clen;
	efx_plan_op(&l->plan, l->plan.n - 1, &off, &clen);
	uint8_t *rec = efx_src_edges(c, it) + (l->plan.n - 1) * EFX_EDGE; /* the last op's edges (efx_edges) */
	efx_corrupt(rec + (clen < EFX_EDGE ? clen : EFX_EDGE) - 1, 1);
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
	bool timed = c->cfg.duration_ns <= 0; /* the timed iterations' count is known: without a duration, at once */
	int part = 0;
	int64_t start = 0, prev = 0, end = 0;
	efx_plan_for(c, &l->plan, l->size);
	l->warmup = timed || c->cfg.warmup ? c->cfg.warmup : 1; /* under a duration, one at least, to time */
	l->total = l->warmup + (timed ? c->cfg.iterations : 1);
	l->first = UINT64_MAX;
	if ((side->start && side->start(l)) || side->sync(l, 0))
		return -1;
	uint64_t met = UINT64_MAX, from = 0; /* where the ends last met while sizing; the part of the warm-up timed */
	int64_t began = efx_now();
	for (uint64_t it = 0; it < l->total; it++) {
		if (it == l->warmup && !timed) {
			if (side->sync(l, it) || size_by_time(l, part++, it - from, efx_now() - began, &timed))
				return -1;
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
		bool hook = false; /* the test hook: rank 0 (corrupt_rank) damages the last iteration it sends, and a check must fail */
		if (side->stamps) {
			l->src = efx_src_slot(c, it);
			if (c->gather) /* the source stays unstamped: the edges go out with it */
				efx_edges(efx_src_edges(c, it), &l->plan, efx_seed(l->size, me, it), me);
			else if (efx_mem_stamp(c, l->src, &l->plan, efx_seed(l->size, me, it), me))
				return -1;
			if (me == c->cfg.corrupt_rank && l->size == c->cfg.corrupt_stamp_size && it == l->total / 2 &&
			    stamp_hook(l, it))
				return -1;
			hook = me == c->cfg.corrupt_rank && l->size == c->cfg.corrupt_size && it == l->total - 1;
			if (hook && efx_mem_corrupt(c, l->src, l->size))
				return -1;
		}
		l->landed = 0;
		/* a landing clock reads the time once per iteration; a side that
		 * times its own, only after the last (43 ns a read on a 16-core host) */
		int64_t t0 = side->lands || side->times ? 0 : efx_now();
		if (side->iteration(l, it))
			return -1;
		if (!side->times || it + 1 == l->total)
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
	if (side->stamps && !c->gather) /* the next size's stamps fall elsewhere */
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
