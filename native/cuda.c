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
	SYM(queue);
	return 0;
}

void efx_cuda_unload(efx_cuda_api *api)
{
	if (api->lib)
		dlclose(api->lib);
	memset(api, 0, sizeof *api);
}
