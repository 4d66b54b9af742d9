/*
 * ring.cu: the memory of a command ring (kernels/ring.h), allocated in one
 * place for the queue and proxy benchmarks: cells in pinned host memory
 * (mapped for the GPU) or managed memory; device cells would need GDRCopy
 * to map them for the CPU, and the benchmark says so instead of measuring
 * something else.
 */
#include "plugin.cuh"

static void free_cells(ring_mem *m)
{
	if (m->kind == EFX_CELLS_PINNED)
		cudaFreeHost(m->cells);
	else if (m->cells)
		cudaFree(m->cells);
	m->cells = NULL;
	m->kind = -1;
	m->bytes = 0;
}

static int alloc_cells(ring_mem *m, int kind, uint64_t bytes, char *err)
{
	switch (kind) {
	case EFX_CELLS_PINNED:
		CU(cudaHostAlloc(&m->cells, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
		break;
	case EFX_CELLS_MANAGED:
		CU(cudaMallocManaged(&m->cells, bytes));
		break;
	default:
		snprintf(err, EFX_CUDA_ERRLEN,
			 "ring cells in device memory need GDRCopy to map them for the CPU, and /dev/gdrdrv is absent");
		return -1;
	}
	m->kind = kind;
	m->bytes = bytes;
	return 0;
}

int efx_ring_mem_open(efx_cuda *c, ring_mem *m, int kind, uint64_t capacity, uint32_t payload, efx_ring *host,
		      efx_ring *dev, char *err)
{
	uint64_t stride = (EFX_RING_HEADER + payload + 15) & ~15ULL, bytes = capacity * stride;
	if (m->cells && (m->kind != kind || m->bytes != bytes))
		free_cells(m);
	if (!m->cells && alloc_cells(m, kind, bytes, err))
		return -1;
	if (!m->ctl)
		CU(cudaHostAlloc(&m->ctl, 256, cudaHostAllocMapped | cudaHostAllocPortable));
	if (!m->head)
		CU(cudaMalloc(&m->head, sizeof *m->head));
	CU(cudaMemsetAsync(m->head, 0, sizeof *m->head, c->stream));
	CU(cudaStreamSynchronize(c->stream)); /* nothing of the last use is still running */
	memset(m->cells, 0, bytes);
	memset(m->ctl, 0, 256);
	*host = efx_ring{m->cells, capacity, stride, payload, NULL, m->ctl, m->ctl + 16};
	*dev = *host;
	dev->head = m->head;
	if (kind == EFX_CELLS_PINNED)
		CU(cudaHostGetDevicePointer((void **)&dev->cells, m->cells, 0));
	CU(cudaHostGetDevicePointer((void **)&dev->tail, m->ctl, 0));
	dev->completed = dev->tail + 16;
	return 0;
}

void efx_ring_mem_free(ring_mem *m)
{
	free_cells(m);
	cudaFreeHost(m->ctl);
	cudaFree(m->head);
	m->ctl = m->head = NULL;
}
