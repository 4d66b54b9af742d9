/*
 * cma.c: the ceiling of libfabric shm's RMA path here: one process copying
 * SIZE bytes out of another's memory with process_vm_readv (Linux CMA,
 * what shm uses for large transfers), in 1 MiB pieces, ITERS times.
 * Prints "cma SIZE ITERS Gbps".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PIECE (1 << 20)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 64 << 20;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	uint8_t *src, *dst;
	if (posix_memalign((void **)&src, 4096, size) || posix_memalign((void **)&dst, 4096, size))
		return 1;
	memset(src, 7, size); /* touched before the fork: the child shares it copy-on-write, read-only */
	memset(dst, 0, size);
	pid_t child = fork();
	if (child == 0) {
		pause(); /* holds src until killed */
		return 0;
	}
	double t0 = 0;
	for (int i = 0; i <= iters; i++) { /* iteration 0 warms up */
		if (i == 1)
			t0 = now();
		for (size_t off = 0; off < size; off += PIECE) {
			size_t n = size - off < PIECE ? size - off : PIECE;
			struct iovec l = {dst + off, n}, r = {src + off, n};
			if (process_vm_readv(child, &l, 1, &r, 1, 0) != (ssize_t)n) {
				perror("process_vm_readv");
				kill(child, SIGKILL);
				return 1;
			}
		}
	}
	double t = now() - t0;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (dst[size - 1] != 7)
		return 1;
	printf("cma %zu %d %.2f\n", size, iters, 8.0 * size * iters / t / 1e9);
	return 0;
}
