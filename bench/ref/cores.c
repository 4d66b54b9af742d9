/*
 * cores.c: how far apart two cores are: one cache line bounced between a
 * thread on core A and one on core B, N round trips. Cores that share a
 * cache pass it in tens of ns; cores that do not take several times that.
 * A VM's vCPUs can move between the two cases while it runs, and every
 * transfer between two ranks on them (shm's copies, loopback tcp) moves
 * with them, so the bench reads this before and after each measurement.
 * Prints "cores A B N ns-per-round-trip".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "ref.h"

static _Atomic long line __attribute__((aligned(64)));
static long trips;

static int pin(int core)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(core, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *answer(void *core)
{
	if (pin(*(int *)core))
		exit(1);
	for (long i = 0; i < trips; i++) {
		while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&line, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
	trips = argc > 3 ? atol(argv[3]) : 100000;
	pthread_t t;
	if (trips < 1 || pin(a) || pthread_create(&t, NULL, answer, &b))
		return 1;
	double t0 = now();
	for (long i = 0; i < trips; i++) {
		atomic_store_explicit(&line, 2 * i + 1, memory_order_release);
		while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 2)
			;
	}
	double t1 = now();
	pthread_join(t, NULL);
	printf("cores %d %d %ld %.1f\n", a, b, trips, (t1 - t0) * 1e9 / trips);
	return 0;
}
