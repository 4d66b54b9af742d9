/*
 * cuda.c: loads libefaxx_cuda.so with dlopen and resolves every function
 * the GPU benchmarks call into one table, so a missing symbol fails at load
 * with its name, and machines without CUDA run every CPU benchmark.
 *
 * Where: $EFAXX_CUDA_PLUGIN, else libefaxx_cuda.so next to efaxx-runner.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "efx.h"

static int plugin_path(char *path, size_t n)
{
	const char *env = getenv("EFAXX_CUDA_PLUGIN");
	if (env && *env) {
		snprintf(path, n, "%s", env);
		return 0;
	}
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return -1;
	self[len] = 0;
	snprintf(path, n, "%s/libefaxx_cuda.so", dirname(self));
	return 0;
}

#define SYM(name)                                                                                      \
	do {                                                                                           \
		*(void **)&api->name = dlsym(api->lib, "efx_cuda_" #name);                             \
		if (!api->name)                                                                        \
			return efx_fail(err, "symbol efx_cuda_%s not found in %.300s: %.150s", #name, path, dlerror()); \
	} while (0)

/* efx_cuda_load fills api from the plugin, or explains why it cannot. */
int efx_cuda_load(efx_cuda_api *api, char *err)
{
	char path[4096];
	if (plugin_path(path, sizeof path))
		return efx_fail(err, "locate libefaxx_cuda.so: set EFAXX_CUDA_PLUGIN");
	api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!api->lib)
		return efx_fail(err,
				"this benchmark needs the CUDA plugin, and it did not load: %s "
				"(build it with `make kernels` on a machine with nvcc, next to efaxx-runner, or set EFAXX_CUDA_PLUGIN)",
				dlerror());
	SYM(abi);
	if (api->abi() != EFX_CUDA_ABI)
		return efx_fail(err, "%.300s speaks plugin ABI %d, efaxx-runner speaks %d: rebuild it", path, api->abi(),
				EFX_CUDA_ABI);
	SYM(open);
	SYM(close);
	SYM(ipc_alloc);
	SYM(ipc_attach);
	SYM(ipc_prepare);
	SYM(ipc_copy);
	SYM(ipc_check);
	SYM(a2a_alloc);
	SYM(a2a_attach);
	SYM(a2a_copy);
	SYM(a2a_check);
	SYM(queue);
	SYM(host_register);
	SYM(proxy_ring);
	SYM(proxy_launch);
	SYM(proxy_wait);
	SYM(ordinal);
	SYM(dev_alloc);
	SYM(dev_free);
	SYM(dev_fill);
	SYM(dev_stamps);
	SYM(dev_stamp);
	SYM(dev_check);
	SYM(dev_corrupt);
	SYM(dev_reference);
	return 0;
}

void efx_cuda_unload(efx_cuda_api *api)
{
	if (api->lib)
		dlclose(api->lib);
	memset(api, 0, sizeof *api);
}

/* efx_cuda_attach loads the plugin and opens this rank's GPU (local rank
 * modulo the GPUs there are), once. */
int efx_cuda_attach(efx_ctx *c)
{
	if (c->gpu)
		return 0;
	return efx_cuda_load(&c->cuda, c->err) ||
	       c->cuda.open(c->info->local_rank, &c->gpu, c->info->gpu, sizeof c->info->gpu, c->err);
}

/* efx_memory_open finishes a network benchmark's buffers after the rails
 * registered them. pinned: host memory registered with CUDA as well
 * (page-locked, mapped for GPU kernels), as Libefaxx's Pin buffers. host
 * and device need nothing more (device buffers were allocated on the GPU
 * and registered through FI_HMEM by fabric.c). */
int efx_memory_open(efx_ctx *c)
{
	if (c->cfg.memory != EFX_MEMORY_PINNED)
		return 0;
	if (efx_cuda_attach(c))
		return -1;
	for (int b = BUF_SRC; b <= BUF_DST; b++)
		if (c->cuda.host_register(c->gpu, c->buf[b].ptr, c->buf[b].len, c->err))
			return -1;
	return 0;
}

/* efx_references measures, on rank 0 of a network benchmark on GPU
 * memory, what the same bytes cost without the network: cudaMemcpy from a
 * buffer on its GPU to one on the first peer's GPU (variant cudaMemcpy:
 * inside the one GPU when they share it, over NVLink or PCIe when not; on
 * rank 0's own GPU when the peer is on another node) and staged through
 * pinned host memory (variant staged), one copy an iteration, or two
 * (there and back) for the sendrecv round trip, timed per iteration. It
 * returns the samples it wrote into out, or -1. */
/* efx_references_open readies rank 0's references before the first size
 * is measured: their buffers, of the largest size, and the peer access a
 * copy to another GPU needs, which then holds for every size alike. */
int efx_references_open(efx_ctx *c)
{
	if (c->cfg.memory != EFX_MEMORY_DEVICE || c->info->rank != 0 || !c->gpu)
		return 0;
	efx_cuda_timing t = {0};
	return c->cuda.dev_reference(c->gpu, EFX_REF_DEVICE, 0, c->peer_gpu, c->cfg.max_size, 0, 0, c->lat, &t, c->err);
}

int efx_references(efx_ctx *c, uint64_t size, efx_sample *out)
{
	if (c->cfg.memory != EFX_MEMORY_DEVICE || c->info->rank != 0)
		return 0;
	if (!c->gpu || !c->cuda.dev_reference) /* memory = device on a benchmark that opened no GPU buffers (queue on CPU) */
		return efx_fail_at(c->err, "%s: memory = device applies to the network benchmarks; this one opened no GPU "
				   "buffers, so there is no cudaMemcpy reference to measure", c->benchmark);
	int both = strcmp(c->benchmark, "sendrecv") == 0;
	static const char *names[] = {"cudaMemcpy", "staged"};
	for (int k = 0; k < 2; k++) {
		efx_cuda_timing t = {0};
		if (c->cuda.dev_reference(c->gpu, k == 0 ? EFX_REF_DEVICE : EFX_REF_STAGED, both, c->peer_gpu, size,
					  c->cfg.warmup, c->cfg.iterations, c->lat, &t, c->err))
			return -1;
		efx_sample *s = &out[k];
		memset(s, 0, sizeof *s);
		s->peer = -1;
		s->role = EFX_ROLE_INITIATOR;
		s->size = size;
		s->bytes_sent = size;
		s->bytes_recv = both ? size : 0;
		s->elapsed_ns = t.elapsed_ns;
		snprintf(s->variant, sizeof s->variant, "%s", names[k]);
		efx_summarize(s, c->lat, t.iterations);
	}
	return 2;
}
