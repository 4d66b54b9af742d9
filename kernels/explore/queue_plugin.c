// queue_plugin.c: the plugin's queue measurement called directly, ring and
// floor, blocking and NBI, 1 to 256 producers: to look at one of them
// without the runner. Not part of efaxx.
//
//   cc -O2 -I.. -o queue_plugin queue_plugin.c -L../../bin -lefaxx_cuda -Wl,-rpath,'$ORIGIN/../../bin'
//   ./queue_plugin CORE
#include <stdio.h>
#include <stdlib.h>

#include "efaxx_cuda.h"

int main(int argc, char **argv)
{
	char err[EFX_CUDA_ERRLEN] = "", info[256];
	efx_cuda *c;
	if (efx_cuda_open(0, &c, info, sizeof info, err)) {
		printf("open: %s\n", err);
		return 1;
	}
	printf("%s\n", info);
	static uint64_t lat[65536];
	uint32_t prods[] = {1, 32, 256};
	for (int pass = 0; pass < 2; pass++)
		for (int blocking = 1; blocking >= 0; blocking--)
			for (int i = 0; i < 3; i++)
				for (int floor = 0; floor < 2; floor++) {
					efx_cuda_queue_spec s = {.cells = EFX_CELLS_PINNED, .blocking = blocking, .payload = 8,
								 .producers = prods[i], .items = 65536, .warmup = 4096,
								 .core = argc > 1 ? atoi(argv[1]) : -1, .floor = floor};
					efx_cuda_timing t = {0};
					err[0] = 0;
					int rc = efx_cuda_queue(c, &s, lat, &t, err);
					printf("pass %d %-8s %-5s producers %3u: ", pass, blocking ? "blocking" : "nbi",
					       floor ? "floor" : "ring", prods[i]);
					if (rc)
						printf("FAIL %s\n", err);
					else
						printf("%llu commands in %llu ns: %8.2f M/s, a median-ish command %llu ns\n",
						       (unsigned long long)t.iterations, (unsigned long long)t.elapsed_ns,
						       (double)t.iterations * 1e3 / (double)t.elapsed_ns,
						       (unsigned long long)lat[t.iterations / 2]);
					fflush(stdout);
				}
	efx_cuda_close(c);
	return 0;
}
