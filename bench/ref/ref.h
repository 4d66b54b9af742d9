/*
 * ref.h: what the reference programs share: a clock, and buffers allocated
 * as efaxx-runner allocates them (2 MiB aligned, transparent huge pages
 * asked for), so a reference and the runner move the same kind of memory.
 */
#ifndef EFAXX_REF_H
#define EFAXX_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline uint8_t *buffer(size_t size)
{
	void *p;
	if (posix_memalign(&p, 2 << 20, size))
		return NULL;
	madvise(p, size - size % (2 << 20), MADV_HUGEPAGE);
	return p;
}

#endif
