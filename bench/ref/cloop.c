/* cloop.c: efaxx's native write loop (native/, the code efaxx-runner
 * calls through cgo) driven from a plain C program under mpirun, with no
 * Go runtime in the process: run beside efaxx-runner, it prices the Go
 * process apart from the loop. Prints rank 0's GB/s of payload, as the
 * bench counts it. Built by cloop.sh.
 *
 * usage: cloop SIZE ITERATIONS [SLOTS]  (tcp over lo, one rail, the
 * runner's defaults: warm-up 10, window 16, ops of up to 8 MiB, 64 slots) */
#include <stdio.h>
#include <stdlib.h>

#include "efaxx.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cloop SIZE ITERATIONS [SLOTS]\n");
		return 2;
	}
	uint64_t size = strtoull(argv[1], NULL, 0), iters = strtoull(argv[2], NULL, 0);
	uint32_t slots = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 64;
	static char err[EFX_ERRLEN];
	static efx_info info;
	efx_config cfg = {.benchmark = "write", .provider = "tcp", .nics = "lo", .rails = 1, .strategy = EFX_SINGLE,
			  .core = -1, .memory = EFX_MEMORY_HOST, .max_size = size, .chunk = 8u << 20, .window = 16,
			  .slots = slots, .iterations = iters, .warmup = 10, .timeout_ns = 60000000000LL};
	efx_ctx *c;
	int n = 0;
	efx_sample *out = calloc((size_t)efx_samples(64), sizeof *out);
	if (!out || efx_mpi_init(&info, err) || efx_open(&cfg, &info, &c, err) || efx_run(c, size, out, &n, err)) {
		fprintf(stderr, "cloop: %s\n", err);
		return 1;
	}
	if (info.rank == 0 && n > 0)
		printf("%.3f\n", (double)(out[0].bytes_sent + out[0].bytes_recv) * (double)out[0].iterations /
					 (double)out[0].elapsed_ns);
	efx_close(c);
	return efx_mpi_finalize(err) ? 1 : 0;
}
