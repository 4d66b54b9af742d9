/*
 * stats.c: per-iteration times to percentiles. Every timed iteration is
 * kept (8 bytes each), so the percentiles are exact, not binned.
 */
#include <stdlib.h>

#include "efx.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* rank_of returns the nearest-rank percentile p (0..100) of sorted v[0..n). */
static uint64_t rank_of(const uint64_t *v, uint64_t n, unsigned p)
{
	uint64_t k = (n * p + 99) / 100; /* ceil(n*p/100), 1-based */
	return v[k ? k - 1 : 0];
}

void efx_summarize(efx_sample *s, uint64_t *lat, uint64_t n)
{
	s->iterations = n;
	if (n == 0)
		return;
	qsort(lat, n, sizeof *lat, cmp_u64);
	s->lat_min = lat[0];
	s->lat_p50 = rank_of(lat, n, 50);
	s->lat_p99 = rank_of(lat, n, 99);
	s->lat_max = lat[n - 1];
}
