/*
 * device.cu: opening and closing a rank's GPU, the SM clock, and host
 * memory registration: what every benchmark of the plugin starts from.
 */
#include "plugin.cuh"

extern "C" int efx_cuda_abi(void) { return EFX_CUDA_ABI; }

/* setup fills a new context for device of n. */
static int setup(efx_cuda *c, int device, int n, char *info, int infolen, char *err)
{
	int driver;
	cudaDeviceProp prop;
	c->device = device;
	CU(cudaSetDevice(c->device));
	CU(cudaGetDeviceProperties(&prop, c->device));
	CU(cudaDriverGetVersion(&driver));
	CU(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
	CU(cudaMalloc(&c->bad, 2 * sizeof *c->bad));
	c->sms = prop.multiProcessorCount;
	snprintf(info, infolen, "%s, sm_%d%d, %d SMs, device %d of %d, driver %d", prop.name, prop.major, prop.minor,
		 c->sms, c->device, n, driver);
	return 0;
}

extern "C" int efx_cuda_open(int device, efx_cuda **out, char *info, int infolen, char *err)
{
	int n;
	*out = NULL;
	CU(cudaGetDeviceCount(&n));
	if (n == 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "no CUDA device");
		return -1;
	}
	efx_cuda *c = (efx_cuda *)calloc(1, sizeof *c);
	if (!c)
		return efx_nomem(err, "open the GPU");
	if (setup(c, device % n, n, info, infolen, err)) {
		efx_cuda_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

extern "C" void efx_cuda_close(efx_cuda *c)
{
	if (!c)
		return;
	efx_ipc_free(c);
	efx_a2a_free(c);
	efx_proxy_free(c);
	efx_hmem_free(c);
	cudaFree(c->bad);
	if (c->stream)
		cudaStreamDestroy(c->stream);
	free(c);
}

extern "C" int efx_cuda_ordinal(efx_cuda *c) { return c->device; }

extern "C" int efx_cuda_host_register(efx_cuda *c, void *ptr, uint64_t len, char *err)
{
	CU(cudaHostRegister(ptr, len, cudaHostRegisterMapped | cudaHostRegisterPortable));
	return 0;
}

/* clock_rate spins for ns nanoseconds of globaltimer and reports the SM
 * cycles and nanoseconds that passed. */
__global__ void clock_rate(unsigned long long *out, uint64_t ns)
{
	uint64_t g0, g1, c0 = clock64();
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
	while (g1 - g0 < ns);
	out[0] = clock64() - c0;
	out[1] = g1 - g0;
}

int efx_clock(efx_cuda *c, char *err)
{
	if (c->ns_per_cycle != 0)
		return 0;
	unsigned long long *d, h[2];
	CU(cudaMalloc(&d, sizeof h));
	clock_rate<<<1, 1, 0, c->stream>>>(d, 20000000);
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, c->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(c->stream);
	cudaFree(d);
	CU(e);
	c->ns_per_cycle = (double)h[1] / (double)h[0];
	return 0;
}
