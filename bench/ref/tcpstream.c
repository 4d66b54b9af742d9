/*
 * tcpstream.c: the reference for tcp write bandwidth: a plain TCP socket
 * stream over loopback (127.0.0.1), one sender thread and one receiver
 * process, as a well-behaved application would write it: 1 MiB send()
 * and recv() calls on blocking sockets. The receiver acknowledges each
 * message of SIZE bytes with one byte, so a message counts only once it
 * has all arrived, as an RDMA write does. Prints "tcpstream SIZE ITERS Gbps".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ref.h"

#define CHUNK (1 << 20)

static int full(int fd, uint8_t *buf, size_t len, int send_side)
{
	for (size_t off = 0; off < len;) {
		size_t n = len - off < CHUNK ? len - off : CHUNK;
		ssize_t r = send_side ? send(fd, buf + off, n, 0) : recv(fd, buf + off, n, 0);
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

static int receiver(int lfd, size_t size, int iters)
{
	int fd = accept(lfd, NULL, NULL);
	uint8_t *buf = malloc(size), ack = 1;
	if (fd < 0 || !buf)
		return 1;
	for (int i = 0; i <= iters; i++)
		if (full(fd, buf, size, 0) || send(fd, &ack, 1, 0) != 1)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 64 << 20;
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl))
		return 1;
	pid_t pid = fork();
	if (pid == 0)
		return receiver(lfd, size, iters);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint8_t *buf = malloc(size), ack;
	if (fd < 0 || !buf || connect(fd, (struct sockaddr *)&sa, sizeof sa))
		return 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	memset(buf, 3, size);
	double t0 = 0;
	for (int i = 0; i <= iters; i++) { /* iteration 0 warms up */
		if (i == 1)
			t0 = now();
		if (full(fd, buf, size, 1) || recv(fd, &ack, 1, MSG_WAITALL) != 1)
			return 1;
	}
	double t = now() - t0;
	int status;
	waitpid(pid, &status, 0);
	printf("tcpstream %zu %d %.2f\n", size, iters, 8.0 * size * iters / t / 1e9);
	return 0;
}
