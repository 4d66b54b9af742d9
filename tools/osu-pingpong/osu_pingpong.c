/*
 * osu_pingpong: an MPI ping-pong between ranks 0 and 1 that prints what it
 * measured exactly as the OSU micro-benchmarks' osu_latency does (OMB 7.x,
 * c/util/osu_util_mpi.c: "%-10d%20.2f", the latency one way, half the mean
 * round trip, in microseconds). It stands in for osu_latency where OMB is
 * not installed, so that efaxx's external benchmark kind runs a real MPI
 * program end to end; efaxx's osu parser reads its output.
 *
 * Usage: osu_pingpong [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-a FILE] [ARG...]
 *
 * Every byte received is checked against a pattern that changes per
 * iteration; a wrong byte prints OSU's "DATA VALIDATION ERROR" line and
 * exits 1. -a writes the program's arguments to FILE, each followed by a
 * NUL byte, so that a test can see exactly what it was given; the ARGs
 * after the options are accepted for that and otherwise ignored.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIELD_WIDTH 20
#define FLOAT_PRECISION 2

struct opts {
	long min, max, iters, warmup;
	const char *argv_file;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int c;
	o->min = 1, o->max = 1 << 16, o->iters = 1000, o->warmup = 100, o->argv_file = NULL;
	while ((c = getopt(argc, argv, "m:i:x:a:")) != -1) {
		switch (c) {
		case 'm':
			if (strchr(optarg, ':')) {
				if (sscanf(optarg, "%ld:%ld", &o->min, &o->max) != 2)
					return -1;
			} else {
				o->max = atol(optarg);
			}
			break;
		case 'i': o->iters = atol(optarg); break;
		case 'x': o->warmup = atol(optarg); break;
		case 'a': o->argv_file = optarg; break;
		default: return -1;
		}
	}
	return (o->min >= 1 && o->max >= o->min && o->iters >= 1 && o->warmup >= 0) ? 0 : -1;
}

/* write_argv writes argv to path, each argument followed by a NUL. */
static int write_argv(const char *path, int argc, char **argv)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	for (int i = 0; i < argc; i++)
		fwrite(argv[i], 1, strlen(argv[i]) + 1, f);
	return fclose(f);
}

static void fill(char *buf, long size, long iter)
{
	for (long i = 0; i < size; i++)
		buf[i] = (char)((i * 31 + iter * 7) & 0xff);
}

/* check returns the first wrong byte's offset, or -1. */
static long check(const char *buf, long size, long iter)
{
	for (long i = 0; i < size; i++)
		if (buf[i] != (char)((i * 31 + iter * 7) & 0xff))
			return i;
	return -1;
}

/* pingpong times iters round trips of size bytes; rank 1 verifies each. */
static int pingpong(int rank, long size, const struct opts *o, char *buf, double *usec)
{
	double t0 = 0;
	long total = o->warmup + o->iters;
	for (long i = 0; i < total; i++) {
		if (i == o->warmup) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			fill(buf, size, i);
			MPI_Send(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			long bad = check(buf, size, i);
			if (bad >= 0) {
				fprintf(stderr, "osu_pingpong: size %ld iteration %ld: byte %ld is wrong\n", size, i, bad);
				return -1;
			}
			MPI_Send(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
	*usec = (MPI_Wtime() - t0) * 1e6 / (2.0 * o->iters);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size;
	struct opts o;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (parse(argc, argv, &o) != 0 || size != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: osu_pingpong [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-a FILE] [ARG...], on 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0 && o.argv_file && write_argv(o.argv_file, argc, argv) != 0) {
		perror(o.argv_file);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char *buf = malloc((size_t)o.max);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		printf("# OSU MPI Latency Test v7.4 (efaxx osu_pingpong)\n");
		printf("%-*s%*s\n", 10, "# Size", FIELD_WIDTH, "Latency (us)");
		printf("# Datatype: MPI_CHAR.\n");
		fflush(stdout);
	}
	int status = 0;
	for (long s = o.min; s <= o.max; s *= 2) {
		double usec = 0;
		int bad = pingpong(rank, s, &o, buf, &usec) != 0;
		MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		if (bad) {
			if (rank == 0)
				printf("DATA VALIDATION ERROR: %s exited with status 1 on message size %ld.\n", argv[0], s);
			status = 1;
			break;
		}
		if (rank == 0) {
			printf("%-*ld%*.*f\n", 10, s, FIELD_WIDTH, FLOAT_PRECISION, usec);
			fflush(stdout);
		}
	}
	free(buf);
	MPI_Finalize();
	return status;
}
