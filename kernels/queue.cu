/*
 * queue.cu: GPU threads push commands into the ring of ring.h; a CPU
 * thread pops and checks every one. The same run measures the floor under
 * it: the same commands through the same memory with none of the ring's
 * protocol (efaxx_cuda.h).
 */
#include <pthread.h>
#include <sched.h>

#include "plugin.cuh"

#define QUEUE_CAPACITY 8192

/* fail_at records the first failed wait: what was waited for (1: room,
 * 2: a command's completion, 3: the last command's completion), at which
 * position, and what the GPU last read of the CPU's word. */
static __device__ void fail_at(unsigned long long *fail, unsigned long long why, uint64_t pos, uint64_t seen)
{
	if (atomicCAS(&fail[0], 0ULL, why) == 0) {
		fail[1] = pos;
		fail[2] = seen;
	}
}

/* produce is run by spec->producers GPU threads; thread k pushes commands
 * k, k + producers, ... A wait that outlasts timeout cycles sets *fail and
 * ends the thread, so a dead consumer cannot hang the GPU. */
__global__ void produce(efx_ring r, uint64_t first, uint64_t n, uint32_t producers, int blocking,
			uint64_t timeout, uint64_t corrupt_id, unsigned long long *lat, unsigned long long *fail)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= producers)
		return;
	uint64_t tail_seen = 0, last = 0;
	for (uint64_t i = k; i < n; i += producers) {
		uint64_t t0 = clock64();
		uint64_t pos = efx_ring_claim(&r);
		while (!efx_ring_room(&r, pos, &tail_seen))
			if (clock64() - t0 > timeout) {
				fail_at(fail, 1, pos, tail_seen);
				return;
			}
		if (first + i == corrupt_id) { /* test hook: publish a command whose payload is damaged */
			uint8_t *cell = efx_ring_cell(&r, pos);
			efx_ring_fill(cell + EFX_RING_HEADER, r.payload, first + i, pos);
			efx_store((volatile uint64_t *)(cell + EFX_RING_HEADER), ~0ULL);
			efx_store((volatile uint64_t *)cell, pos + 1);
		} else {
			efx_ring_put(&r, pos, first + i);
		}
		while (blocking && !efx_ring_done(&r, pos))
			if (clock64() - t0 > timeout) {
				fail_at(fail, 2, pos, efx_load(r.completed));
				return;
			}
		lat[i] = clock64() - t0;
		last = pos + 1;
	}
	/* NBI: one quiet at the end. The fence first: without it the last
	 * relaxed stores to host memory could wait in the GPU while this
	 * thread spins, seen by the CPU only after the kernel ended (on the
	 * H200, 32 producers: one run in two timed out that way). */
	__threadfence_system();
	uint64_t t0 = clock64();
	while (last && !efx_ring_done(&r, last - 1))
		if (clock64() - t0 > timeout) {
			fail_at(fail, 3, last - 1, efx_load(r.completed));
			return;
		}
}

/* produce_floor is produce without the ring's protocol (efaxx_cuda.h):
 * command i goes to cell i, its words are plain, and the room check reads
 * completed. Hot loop of the floor. */
__global__ void produce_floor(efx_ring r, uint64_t first, uint64_t n, uint32_t producers, int blocking,
			      uint64_t timeout, unsigned long long *lat, unsigned long long *fail)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= producers)
		return;
	uint64_t done_seen = 0, last = 0;
	for (uint64_t i = k; i < n; i += producers) {
		uint64_t t0 = clock64(), pos = first + i;
		while (pos - done_seen >= r.capacity) {
			done_seen = efx_load(r.completed);
			if (clock64() - t0 > timeout) {
				fail_at(fail, 1, pos, done_seen);
				return;
			}
		}
		volatile uint64_t *cell = (volatile uint64_t *)efx_ring_cell(&r, pos);
		for (uint32_t w = 1; w <= r.payload / 8; w++)
			efx_store(&cell[w], pos);
		efx_store(cell, pos + 1);
		while (blocking && efx_load(r.completed) <= pos)
			if (clock64() - t0 > timeout) {
				fail_at(fail, 2, pos, efx_load(r.completed));
				return;
			}
		lat[i] = clock64() - t0;
		last = pos + 1;
	}
	__threadfence_system(); /* as produce: the last stores go out before the quiet */
	uint64_t t0 = clock64();
	while (last && efx_load(r.completed) < last)
		if (clock64() - t0 > timeout) {
			fail_at(fail, 3, last - 1, efx_load(r.completed));
			return;
		}
}

/* consume_floor answers the floor's commands: it waits for each cell's
 * sequence word in turn and stores completed, nothing else. */
static int consume_floor(const efx_ring *r, uint64_t total, int64_t timeout_ns, char *err, int errlen)
{
	for (uint64_t t = 0; t < total; t++) {
		const volatile uint64_t *seq = (const volatile uint64_t *)efx_ring_cell(r, t);
		int64_t deadline = 0;
		for (uint32_t spin = 0; efx_load(seq) != t + 1; spin++) {
			if ((spin & 1023) != 0)
				continue;
			int64_t now = efx_ring_now();
			if (deadline == 0)
				deadline = now + timeout_ns;
			else if (now > deadline) {
				snprintf(err, errlen, "queue floor: cell %llu of %llu not written within %.1f s",
					 (unsigned long long)t, (unsigned long long)total, timeout_ns / 1e9);
				return -1;
			}
		}
		efx_store(r->completed, t + 1);
	}
	return 0;
}

typedef struct consumer {
	efx_ring r;
	uint64_t total;
	uint8_t *seen;
	int64_t timeout_ns;
	int core, floor, rc;
	char err[EFX_CUDA_ERRLEN];
} consumer;

static void *consume(void *p)
{
	consumer *a = (consumer *)p;
	if (a->core >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(a->core, &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	if (a->floor)
		a->rc = consume_floor(&a->r, a->total, a->timeout_ns, a->err, sizeof a->err);
	else
		a->rc = efx_ring_consume(&a->r, 0, a->total, a->total, a->seen, 0, a->timeout_ns, a->err, sizeof a->err);
	return NULL;
}

/* queue_mem owns what one queue measurement allocates. */
struct queue_mem {
	ring_mem ring = RING_MEM_NONE;
	unsigned long long *lat = NULL, *fail = NULL;
	uint8_t *seen = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	~queue_mem()
	{
		efx_ring_mem_free(&ring);
		cudaFree(lat);
		cudaFree(fail);
		free(seen);
		if (e0)
			cudaEventDestroy(e0);
		if (e1)
			cudaEventDestroy(e1);
	}
};

static int launch_producers(efx_cuda *c, queue_mem *m, const efx_ring *r, const efx_cuda_queue_spec *s,
			    uint64_t first, uint64_t n, int64_t timeout_ns, char *err)
{
	uint32_t block = s->producers < 256 ? s->producers : 256;
	uint32_t grid = (s->producers + block - 1) / block;
	uint64_t cycles = (uint64_t)(timeout_ns / c->ns_per_cycle);
	uint64_t corrupt = s->corrupt && first == s->warmup ? s->warmup + s->items - 1 : ~0ULL;
	if (s->floor) {
		produce_floor<<<grid, block, 0, c->stream>>>(*r, first, n, s->producers, s->blocking, cycles, m->lat, m->fail);
		LAUNCHED("produce_floor");
		return 0;
	}
	produce<<<grid, block, 0, c->stream>>>(*r, first, n, s->producers, s->blocking, cycles, corrupt, m->lat, m->fail);
	LAUNCHED("produce");
	return 0;
}

/* run_phases launches the warm-up and the timed producers around the two
 * events, and waits for the second. */
static int run_phases(efx_cuda *c, queue_mem *m, const efx_ring *dev, const efx_cuda_queue_spec *s, int64_t timeout_ns,
		      char *err)
{
	if (s->warmup && launch_producers(c, m, dev, s, 0, s->warmup, timeout_ns, err))
		return -1;
	CU(cudaEventRecord(m->e0, c->stream));
	if (launch_producers(c, m, dev, s, s->warmup, s->items, timeout_ns, err))
		return -1;
	CU(cudaEventRecord(m->e1, c->stream));
	CU(cudaEventSynchronize(m->e1));
	return 0;
}

extern "C" int efx_cuda_queue(efx_cuda *c, const efx_cuda_queue_spec *s, uint64_t *lat, efx_cuda_timing *t, char *err)
{
	const int64_t timeout_ns = s->corrupt ? 2000000000LL : 10000000000LL;
	if (s->payload < 8 || s->payload % 8 || s->producers == 0 || s->items == 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "queue: payload must be a positive multiple of 8, producers and items positive");
		return -1;
	}
	if (efx_clock(c, err))
		return -1;
	/* The floor gives every command a cell of its own, so its producers
	 * never wait for room: reusing cells at the floor's rate (490 M stores/s
	 * from 32 producers) left the CPU waiting on a cell whose new contents
	 * it saw only after the kernel ended. */
	uint64_t capacity = QUEUE_CAPACITY;
	while (s->floor && capacity < s->warmup + s->items)
		capacity *= 2;
	queue_mem m;
	efx_ring host, dev;
	if (efx_ring_mem_open(c, &m.ring, s->cells, capacity, s->payload, &host, &dev, err))
		return -1;
	uint64_t n = s->items > s->warmup ? s->items : s->warmup;
	CU(cudaMalloc(&m.lat, n * sizeof *m.lat));
	CU(cudaMalloc(&m.fail, 3 * sizeof *m.fail));
	CU(cudaMemsetAsync(m.fail, 0, 3 * sizeof *m.fail, c->stream));
	CU(cudaEventCreate(&m.e0));
	/* The caller sleeps on the last event: a thread spinning in
	 * cudaEventSynchronize shared the consumer's core now and then and
	 * stalled commands for a 4 ms time slice (blocking, H200: p99 2.7 us,
	 * max 4-8 ms, mean twice the median). */
	CU(cudaEventCreateWithFlags(&m.e1, cudaEventBlockingSync));
	CU(cudaStreamSynchronize(c->stream));
	m.seen = (uint8_t *)calloc(s->warmup + s->items, 1);
	if (!m.seen)
		return efx_nomem(err, "queue: the consumer's record of commands seen");
	consumer a = {host, s->warmup + s->items, m.seen, timeout_ns, s->core, s->floor, 0, ""};
	pthread_t th;
	if (pthread_create(&th, NULL, consume, &a) != 0) {
		snprintf(err, EFX_CUDA_ERRLEN, "queue: start the consumer thread");
		return -1;
	}
	/* The consumer gives up by itself after timeout_ns without a command,
	 * so joining it is safe whatever the GPU did. */
	int rc = run_phases(c, &m, &dev, s, timeout_ns, err);
	pthread_join(th, NULL);
	if (rc)
		return -1;
	float ms = 0;
	unsigned long long fail[3];
	CU(cudaEventElapsedTime(&ms, m.e0, m.e1));
	CU(cudaMemcpy(fail, m.fail, sizeof fail, cudaMemcpyDeviceToHost));
	if (a.rc != 0 || fail[0]) {
		static const char *what[] = {"", "room in the ring (tail)", "its command's completion",
					     "its last command's completion"};
		int n = snprintf(err, EFX_CUDA_ERRLEN, "queue %s: ", s->floor ? "floor" : "ring");
		if (fail[0])
			n += snprintf(err + n, EFX_CUDA_ERRLEN - n,
				      "a producer timed out waiting for %s at position %llu (it read %llu)%s",
				      what[fail[0] < 4 ? fail[0] : 0], fail[1], fail[2], a.rc ? "; " : "");
		if (a.rc)
			snprintf(err + n, EFX_CUDA_ERRLEN - n, "%.400s", a.err);
		return -1;
	}
	CU(cudaMemcpy(lat, m.lat, s->items * sizeof *lat, cudaMemcpyDeviceToHost));
	for (uint64_t i = 0; i < s->items; i++)
		lat[i] = (uint64_t)(lat[i] * c->ns_per_cycle);
	t->elapsed_ns = (uint64_t)(ms * 1e6);
	t->iterations = s->items;
	return 0;
}
