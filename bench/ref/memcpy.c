/*
 * memcpy.c: the reference for shm write bandwidth: one thread copying a
 * buffer of SIZE bytes with memcpy, ITERS times, between two buffers that
 * were touched first. Prints "memcpy SIZE ITERS Gbps".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ref.h"

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 64 << 20;
	int iters = argc > 2 ? atoi(argv[2]) : 50;
	uint8_t *a, *b;
	if (!(a = buffer(size)) || !(b = buffer(size)))
		return 1;
	memset(a, 1, size);
	memset(b, 2, size);
	memcpy(b, a, size); /* warm-up */
	double t0 = now();
	for (int i = 0; i < iters; i++) {
		a[i % size] = (uint8_t)i; /* the copy cannot be skipped */
		memcpy(b, a, size);
	}
	double t = now() - t0;
	if (b[(iters - 1) % size] != (uint8_t)(iters - 1))
		return 1;
	printf("memcpy %zu %d %.4f\n", size, iters, 8.0 * size * iters / t / 1e9);
	return 0;
}
