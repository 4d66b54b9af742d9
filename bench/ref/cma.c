/*
 * cma.c: the ceiling of libfabric shm's RMA path here: one process copying
 * SIZE bytes out of another's memory with process_vm_readv (Linux CMA,
 * what shm uses for large transfers), in pieces of PIECE bytes (default:
 * the whole buffer in one call), ITERS times.
 * Prints "cma SIZE ITERS Gbps".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ref.h"

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 64 << 20;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	size_t piece = argc > 3 ? strtoull(argv[3], NULL, 0) : size;
	int fds[2];
	if (piece == 0 || pipe(fds))
		return 1;
	/* Each process allocates and touches its own buffer, as two ranks do:
	 * memory shared copy-on-write by a fork would be broken into small
	 * pages by the first copy. The child sends its buffer's address. */
	pid_t child = fork();
	if (child == 0) {
		uint8_t *src = buffer(size);
		if (!src)
			return 1;
		memset(src, 7, size);
		if (write(fds[1], &src, sizeof src) != sizeof src)
			return 1;
		pause(); /* holds src until killed */
		return 0;
	}
	uint8_t *src, *dst = buffer(size);
	if (!dst || read(fds[0], &src, sizeof src) != sizeof src) {
		kill(child, SIGKILL);
		return 1;
	}
	memset(dst, 0, size);
	double t0 = 0;
	for (int i = 0; i <= iters; i++) { /* iteration 0 warms up */
		if (i == 1)
			t0 = now();
		for (size_t off = 0; off < size; off += piece) {
			size_t n = size - off < piece ? size - off : piece;
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
	printf("cma %zu %d %.4f\n", size, iters, 8.0 * size * iters / t / 1e9);
	return 0;
}
