/*
 * sleeper.c: given by LD_PRELOAD, it makes a program's process
 * multi-threaded and nothing else: one more thread, started before main,
 * that only sleeps. glibc then takes its mutexes with atomic
 * instructions, and the kernel takes a reference on the file of each
 * system call, as in efaxx-runner's process (a Go program runs several
 * threads). bench/ref/threads.sh, docs/performance.md.
 */
#include <pthread.h>
#include <unistd.h>

static void *sleep_on(void *arg)
{
	for (;;)
		pause();
	return arg;
}

__attribute__((constructor)) static void start(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, sleep_on, NULL) == 0)
		pthread_detach(t);
}
