/*
 * ring.h: the command ring from producers to one CPU consumer.
 *
 * One header for two builds. Under nvcc the producer side compiles for the
 * GPU with system-scope atomics, so GPU threads push commands that a CPU
 * thread pops (the queue and proxy benchmarks). Under a plain C compiler both
 * sides compile for the host, so a CPU thread can stand in for the GPU: the
 * same protocol runs and is tested where there is no GPU.
 *
 * Memory: the cells live wherever the variant puts them (managed, pinned
 * host, or device memory mapped for the CPU). The words both sides touch,
 * tail and completed, live in pinned host memory, which the GPU can always
 * reach; head and posted are touched by producers only and live beside them
 * (device memory on a GPU).
 *
 * Protocol (many producers, one consumer, bounded, FIFO by claim order):
 *   producer  pos = fetch_add(head, 1)                  claim a cell
 *             wait until pos - tail < capacity          (tail is re-read only when the ring looks full)
 *             write the payload into cell[pos & mask], every word bound to pos
 *             store(cell.seq, pos + 1)                  publish it (on the GPU, in the
 *                                                       last 16-byte store of the cell)
 *   consumer  wait until cell[t & mask].seq == t + 1 and the payload reads
 *             whole and bound to t (re-reading until it does)
 *             store(tail, t + 1); store(completed, t + 1)
 *
 * All stores and loads are relaxed, at system scope. A release store from
 * the GPU to host memory costs about 1.4 us on an H200 (it waits for every
 * earlier write to reach the host), 15 times a relaxed push, so the cells
 * carry their own proof instead: each payload word is bound to the cell's
 * position, and a consumer that sees seq before the payload has landed
 * reads again. The consumer's own order (read the cell, then store tail)
 * is kept by the host (x86 keeps loads before later stores; elsewhere the
 * release on tail keeps it), so a producer never overwrites a cell in use.
 *
 * A producer that wants its command done (blocking mode, or a final quiet)
 * waits until completed > its pos.
 */
#ifndef EFX_RING_H
#define EFX_RING_H

#include <stdint.h>

#ifdef __CUDACC__
#define EFX_HD __host__ __device__ __forceinline__
#else
#define EFX_HD static inline
#endif

/* A cell starts with its sequence word; the payload follows. */
#define EFX_RING_HEADER 8

typedef struct efx_ring {
	uint8_t *cells;              /* capacity cells of stride bytes */
	uint64_t capacity;           /* a power of two */
	uint64_t stride;             /* bytes per cell: header + payload, rounded to 16 */
	uint32_t payload;            /* payload bytes per command */
	uint64_t *head;              /* producers' claim counter */
	volatile uint64_t *tail;     /* next cell the consumer will read */
	volatile uint64_t *completed; /* commands the consumer has finished */
} efx_ring;

EFX_HD uint64_t efx_load(const volatile uint64_t *p)
{
#if defined(__CUDA_ARCH__)
	uint64_t v;
	asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
#else
	return __atomic_load_n(p, __ATOMIC_ACQUIRE); /* free on x86 */
#endif
}

EFX_HD void efx_store(volatile uint64_t *p, uint64_t v)
{
#if defined(__CUDA_ARCH__)
	asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
	__atomic_store_n(p, v, __ATOMIC_RELEASE); /* free on x86 */
#endif
}

/* efx_claim claims one position. On the GPU the lanes of a warp that
 * claim together take consecutive positions with one atomic, made by the
 * first of them: 32 atomics on one address queue up in L2 one after the
 * other, and held 32 producers (one warp) to about 27 M commands/s on an
 * H200. */
EFX_HD uint64_t efx_claim(uint64_t *head)
{
#if defined(__CUDA_ARCH__)
	unsigned mask = __activemask(), lane;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	int leader = __ffs(mask) - 1;
	unsigned long long base = 0;
	if ((int)lane == leader)
		base = atomicAdd((unsigned long long *)head, (unsigned long long)__popc(mask));
	base = __shfl_sync(mask, base, leader);
	return base + (uint64_t)__popc(mask & ((1u << lane) - 1));
#else
	return __atomic_fetch_add(head, 1, __ATOMIC_RELAXED);
#endif
}

EFX_HD uint64_t efx_ring_mix(uint64_t x)
{ /* splitmix64's finalizer: every input bit moves every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* efx_ring_cell returns the cell of position pos. */
EFX_HD uint8_t *efx_ring_cell(const efx_ring *r, uint64_t pos)
{
	return r->cells + (pos & (r->capacity - 1)) * r->stride;
}

/* efx_ring_fill writes command id's payload for position pos: the id, then
 * words derived from it, each bound to pos. */
EFX_HD uint64_t efx_ring_word(uint64_t id, uint32_t j, uint64_t pos);

EFX_HD void efx_ring_fill(uint8_t *payload, uint32_t len, uint64_t id, uint64_t pos)
{
	volatile uint64_t *w = (volatile uint64_t *)payload;
	for (uint32_t i = 0; i < len / 8; i++)
		efx_store(&w[i], efx_ring_word(id, i, pos));
}

/* efx_ring_check reports whether payload holds a whole command written for
 * position pos, and which id. A payload still landing, or left from the
 * cell's previous use, does not. */
EFX_HD int efx_ring_check(const uint8_t *payload, uint32_t len, uint64_t pos, uint64_t total, uint64_t *id)
{
	const volatile uint64_t *w = (const volatile uint64_t *)payload;
	uint64_t bind = efx_ring_mix(pos);
	*id = efx_load(&w[0]) ^ bind;
	if (*id >= total)
		return 0;
	for (uint32_t i = 1; i < len / 8; i++)
		if (efx_load(&w[i]) != (efx_ring_mix(*id * 131 + i) ^ bind))
			return 0;
	return 1;
}

/* efx_ring_claim claims the next position for one command. */
EFX_HD uint64_t efx_ring_claim(const efx_ring *r) { return efx_claim(r->head); }

/* efx_ring_room reports whether the cell of pos is free. tail_seen caches
 * the consumer's tail between calls, so a producer reads the consumer's
 * memory only when the ring looks full. Callers loop on it with a deadline. */
EFX_HD int efx_ring_room(const efx_ring *r, uint64_t pos, uint64_t *tail_seen)
{
	if (pos - *tail_seen < r->capacity)
		return 1;
	*tail_seen = efx_load(r->tail);
	return pos - *tail_seen < r->capacity;
}

/* efx_ring_word is word j of command id's payload at position pos, as
 * efx_ring_fill writes it. */
EFX_HD uint64_t efx_ring_word(uint64_t id, uint32_t j, uint64_t pos)
{
	uint64_t bind = efx_ring_mix(pos);
	return (j == 0 ? id : efx_ring_mix(id * 131 + j)) ^ bind;
}

/* efx_ring_put writes command id into the claimed cell and publishes it.
 * The GPU writes the cell in 16-byte stores, the one holding the sequence
 * word (and the payload's first word) last: a warp of producers then
 * writes whole lines of host memory, where 8-byte stores left a third of
 * the rate on the bus (32 producers, 8-byte commands: 28 against 78 M/s on
 * an H200). The cell's own proof covers a store that lands in parts. */
EFX_HD void efx_ring_put(const efx_ring *r, uint64_t pos, uint64_t id)
{
	uint8_t *cell = efx_ring_cell(r, pos);
#if defined(__CUDA_ARCH__)
	volatile uint64_t *w = (volatile uint64_t *)cell;
	uint32_t n = r->payload / 8; /* cell word i + 1 holds payload word i; stride pads to 16 bytes */
	for (uint32_t k = 1; 2 * k <= n; k++) {
		uint64_t a = efx_ring_word(id, 2 * k - 1, pos), b = 2 * k < n ? efx_ring_word(id, 2 * k, pos) : 0;
		asm volatile("st.relaxed.sys.v2.u64 [%0], {%1, %2};" ::"l"(&w[2 * k]), "l"(a), "l"(b) : "memory");
	}
	asm volatile("st.relaxed.sys.v2.u64 [%0], {%1, %2};" ::"l"(w), "l"(pos + 1), "l"(efx_ring_word(id, 0, pos))
		     : "memory");
#else
	efx_ring_fill(cell + EFX_RING_HEADER, r->payload, id, pos);
	efx_store((volatile uint64_t *)cell, pos + 1);
#endif
}

/* efx_ring_done reports whether the consumer has finished the command at pos. */
EFX_HD int efx_ring_done(const efx_ring *r, uint64_t pos)
{
	return efx_load(r->completed) > pos;
}

/* efx_ring_ready reports whether the consumer's next cell, at pos, is published. */
EFX_HD int efx_ring_ready(const efx_ring *r, uint64_t pos)
{
	return efx_load((const volatile uint64_t *)efx_ring_cell(r, pos)) == pos + 1;
}

/* efx_ring_release hands the cell at pos back and marks its command done. */
EFX_HD void efx_ring_release(const efx_ring *r, uint64_t pos)
{
	efx_store(r->tail, pos + 1);
	efx_store(r->completed, pos + 1);
}

/* The consumer side is host code in both builds. */
#include <sched.h>
#include <stdio.h>
#include <time.h>

static inline int64_t efx_ring_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* efx_ring_consume pops the n commands at positions [first, first + n) in
 * order, checks each payload, and checks that each id is in [0, total) and
 * arrives only once (seen holds total bytes, zeroed before the first call).
 * It gives up when nothing arrives for timeout_ns. A polite consumer yields
 * the CPU while it waits: for producers on CPU threads of a machine with
 * fewer cores than threads; a GPU's consumer spins. The clock is read only
 * once a command is not there at first look: reading it for every command
 * held the consumer to 27 M commands/s (kernels/explore/NOTES.md). */
static inline int efx_ring_consume(const efx_ring *r, uint64_t first, uint64_t n, uint64_t total, uint8_t *seen,
				   int polite, int64_t timeout_ns, char *err, int errlen)
{
	for (uint64_t t = first; t < first + n; t++) {
		const uint8_t *payload = efx_ring_cell(r, t) + EFX_RING_HEADER;
		uint64_t id = 0;
		int64_t deadline = 0;
		for (uint32_t spin = 0; !efx_ring_ready(r, t) || !efx_ring_check(payload, r->payload, t, total, &id); spin++) {
			if (polite)
				sched_yield();
			if ((spin & 1023) != 0)
				continue;
			int64_t now = efx_ring_now();
			if (deadline == 0)
				deadline = now + timeout_ns;
			else if (now > deadline) {
				snprintf(err, errlen,
					 "queue: cell %llu of %llu held no whole command within %.1f s (seq %llu): lost or corrupt",
					 (unsigned long long)t, (unsigned long long)total, timeout_ns / 1e9,
					 (unsigned long long)efx_load((const volatile uint64_t *)efx_ring_cell(r, t)));
				return -1;
			}
		}
		if (seen[id]) {
			snprintf(err, errlen, "queue: command %llu arrived twice (cell %llu)", (unsigned long long)id,
				 (unsigned long long)t);
			return -1;
		}
		seen[id] = 1;
		efx_ring_release(r, t);
	}
	return 0;
}

#endif
