/*
 * tcpstream.c: the reference for tcp bandwidth over loopback (127.0.0.1):
 * ITERS messages of SIZE bytes streamed one way over one TCP connection,
 * each handed to a non-blocking socket whole (send() until all of it is
 * taken, as libfabric's tcp provider hands it a message), and received
 * into one buffer of SIZE. Nothing else: no header, no completion queue,
 * no check, what the kernel alone costs the messages (not a ceiling:
 * libfabric's tcp has run ahead of it from 1 MiB up, docs/performance.md).
 * The sender runs on CPU 0 and the receiver on CPU 1,
 * as efaxx-runner's ranks 0 and 1 and the bench's fabtests client and
 * server do. After 10 messages of warm-up the two meet; the clock then
 * runs from the first send to the receiver's one-byte acknowledgement of
 * the last message, so only bytes that arrived count. Prints "tcpstream
 * SIZE ITERS Gbps".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ref.h"

#define WARMUP 10

/* pin puts the calling process on cpu where the machine has it. */
static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (cpu < sysconf(_SC_NPROCESSORS_ONLN))
		sched_setaffinity(0, sizeof set, &set);
}

/* whole moves all len bytes of buf, as often as send or recv takes part. */
static int whole(int fd, uint8_t *buf, size_t len, int sending)
{
	for (size_t off = 0; off < len;) {
		ssize_t r = sending ? send(fd, buf + off, len - off, MSG_DONTWAIT)
				    : recv(fd, buf + off, len - off, MSG_DONTWAIT);
		if (r > 0)
			off += (size_t)r;
		else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return -1;
	}
	return 0;
}

/* messages moves n messages of size from or into buf, then exchanges one
 * byte the other way: the receiver's word that all of them arrived. */
static int messages(int fd, uint8_t *buf, size_t size, int n, int sending)
{
	uint8_t ack = 1;
	for (int i = 0; i < n; i++)
		if (whole(fd, buf, size, sending))
			return -1;
	return sending ? whole(fd, &ack, 1, 0) : whole(fd, &ack, 1, 1);
}

static int receiver(int lfd, size_t size, int iters)
{
	pin(1);
	int fd = accept(lfd, NULL, NULL);
	uint8_t *buf = buffer(size);
	if (fd < 0 || !buf)
		return 1;
	memset(buf, 0, size);
	return messages(fd, buf, size, WARMUP, 0) || messages(fd, buf, size, iters, 0);
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 64 << 20;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (size == 0 || iters <= 0 || lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl))
		return 1;
	pid_t pid = fork();
	if (pid == 0)
		return receiver(lfd, size, iters);
	pin(0);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint8_t *buf = buffer(size);
	if (fd < 0 || !buf || connect(fd, (struct sockaddr *)&sa, sizeof sa))
		return 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	memset(buf, 3, size);
	if (messages(fd, buf, size, WARMUP, 1))
		return 1;
	double t0 = now();
	if (messages(fd, buf, size, iters, 1))
		return 1;
	double t = now() - t0;
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	printf("tcpstream %zu %d %.4f\n", size, iters, 8.0 * size * iters / t / 1e9);
	return 0;
}
