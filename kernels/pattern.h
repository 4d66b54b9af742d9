/*
 * pattern.h: the words that prove a payload, shared by the host checks
 * (native/pattern.c) and by GPU code that writes payloads (the proxy
 * benchmark's kernel), so both compute the same values.
 */
#ifndef EFX_PATTERN_H
#define EFX_PATTERN_H

#include <stdint.h>

#ifdef __CUDACC__
#define EFX_PHD __host__ __device__ __forceinline__
#else
#define EFX_PHD static inline
#endif

/* efx_mix64 is splitmix64's finalizer: cheap, and every input bit moves every output bit. */
EFX_PHD uint64_t efx_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* efx_base_word is word w (bytes 8w..8w+7) of sender's base pattern. */
EFX_PHD uint64_t efx_base_word(uint64_t w, int sender) { return efx_mix64((w << 16) ^ (uint64_t)(uint32_t)sender); }

/* Stamps an op carries at most: its first and last word (native/pattern.c). */
#define EFX_STAMPS 2

/* efx_stamp_value is stamp k (0: first word, 1: last) of op number op in
 * the iteration with this seed. */
EFX_PHD uint64_t efx_stamp_value(uint64_t seed, uint64_t op, int k, int sender)
{
	return efx_mix64(seed ^ efx_mix64((op << 8 | (uint64_t)k) ^ ((uint64_t)(uint32_t)sender << 40)));
}

#endif
