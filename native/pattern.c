/*
 * pattern.c: payload patterns that prove every transfer.
 *
 * A sender's buffer holds a base pattern that depends on the byte offset and
 * the sender's rank, written once. Each iteration then stamps the first and
 * last word of every op of its plan with values that depend on the
 * iteration's seed and the op's number, so a stale, misplaced or missing
 * op is caught at a cost of two words per op. A full check compares every
 * byte; the benchmarks run it on the first and last iteration of each size
 * and peer.
 *
 * The stamps sit at an op's edges so that a writer can send every
 * iteration from one unstamped buffer, gathering each op's stamps from a
 * small one (efx_edges, efx_gather): three pieces an op, within the four
 * that libfabric's tcp and shm take. A stamped source slot per iteration
 * in flight had the kernel copy from 2 MiB of source, not one hot
 * buffer: on a 16-core host gathering made tcp writes of 64 KiB-1 MiB
 * 5-12% faster (docs/performance.md).
 */
#include <string.h>

#include "efx.h"
#include "pattern.h"

/* efx_seed ties a payload to its size, its sender and iteration. */
uint64_t efx_seed(uint64_t size, int sender, uint64_t it)
{
	return (size * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(uint32_t)sender << 32) ^ it;
}

static inline uint64_t base_word(size_t w, int sender) { return efx_base_word(w, sender); }

static inline uint8_t base_byte(size_t i, int sender)
{
	return (uint8_t)(base_word(i / 8, sender) >> (8 * (i % 8)));
}

void efx_fill(uint8_t *buf, size_t len, int sender)
{
	size_t words = len / 8;
	for (size_t w = 0; w < words; w++) {
		uint64_t v = base_word(w, sender);
		memcpy(buf + 8 * w, &v, 8);
	}
	for (size_t i = 8 * words; i < len; i++)
		buf[i] = base_byte(i, sender);
}

/* stamps lists the stamp offsets inside a chunk of clen bytes: its first
 * and last word (one stamp of clen bytes under 9); returns how many. */
static int stamps(size_t clen, size_t pos[EFX_STAMPS])
{
	pos[0] = 0;
	if (clen <= 8)
		return 1;
	pos[1] = clen - 8;
	return 2; /* overlap in chunks under 16 bytes: writers and checkers apply them in order */
}

static inline uint64_t stamp_value(uint64_t seed, size_t op, int k, int sender)
{
	return efx_stamp_value(seed, op, k, sender);
}

static void stamp_chunk(uint8_t *c, size_t clen, size_t ci, uint64_t seed, int sender)
{
	size_t pos[EFX_STAMPS];
	int n = stamps(clen, pos);
	for (int k = 0; k < n; k++) {
		uint64_t v = stamp_value(seed, ci, k, sender);
		memcpy(c + pos[k], &v, clen < 8 ? clen : 8);
	}
}

void efx_stamp(uint8_t *buf, const efx_plan *p, uint64_t seed, int sender)
{
	for (uint64_t k = 0, off, len; k < p->n; k++) {
		efx_plan_op(p, k, &off, &len);
		stamp_chunk(buf + off, len, k, seed, sender);
	}
}

/* efx_stamp_list lists where efx_stamp writes for plan p: up to EFX_STAMPS * p->n
 * entries of offset, op << 8 | k (what efx_stamp_value takes) and width in
 * bytes (8, or a short op's length). It returns how many. GPU code that
 * writes the payload stamps from this list. */
uint32_t efx_stamp_list(const efx_plan *p, uint64_t *off, uint32_t *key, uint8_t *width)
{
	uint32_t n = 0;
	for (uint64_t k = 0, o, clen; k < p->n; k++) {
		efx_plan_op(p, k, &o, &clen);
		size_t pos[EFX_STAMPS];
		int m = stamps(clen, pos);
		for (int j = 0; j < m; j++, n++) {
			off[n] = o + pos[j];
			key[n] = (uint32_t)(k << 8 | (uint64_t)j);
			width[n] = (uint8_t)(clen < 8 ? clen : 8);
		}
	}
	return n;
}

/* efx_corrupt flips one byte: the test hook that proves checks fail. Calling it again undoes it. */
void efx_corrupt(uint8_t *buf, size_t len) { buf[len / 3] ^= 0x5a; /* off the stamps: only a full check sees it */ }

/* efx_unstamp puts the base pattern back where efx_stamp wrote, so the
 * next size, whose stamps fall elsewhere, starts from a clean buffer. */
void efx_unstamp(uint8_t *buf, const efx_plan *p, int sender)
{
	for (uint64_t k = 0, off, clen; k < p->n; k++) {
		efx_plan_op(p, k, &off, &clen);
		size_t pos[EFX_STAMPS];
		int n = stamps(clen, pos);
		for (int j = 0; j < n; j++)
			for (size_t i = off + pos[j]; i < off + pos[j] + 8 && i < p->size; i++)
				buf[i] = base_byte(i, sender);
	}
}

/* wrong_byte fails naming byte at of a payload of len bytes: it held got, not want. */
static int wrong_byte(size_t at, size_t len, uint8_t got, uint8_t want, int sender, char *err)
{
	return efx_fail(err, "payload mismatch at byte %zu of %zu from rank %d: got 0x%02x, want 0x%02x",
			at, len, sender, got, want);
}

static int mismatch(const uint8_t *buf, size_t at, size_t len, uint8_t want, int sender, char *err)
{
	return wrong_byte(at, len, buf[at], want, sender, err);
}

/* check_base compares buf[a, b) with the base pattern; offsets are absolute. */
static int check_base(const uint8_t *buf, size_t a, size_t b, size_t len, int sender, char *err)
{
	size_t i = a;
	for (; i < b && i % 8; i++)
		if (buf[i] != base_byte(i, sender))
			return mismatch(buf, i, len, base_byte(i, sender), sender, err);
	for (; i + 8 <= b; i += 8) {
		uint64_t got;
		memcpy(&got, buf + i, 8);
		if (got != base_word(i / 8, sender))
			break; /* the byte loop below names the first wrong byte */
	}
	for (; i < b; i++)
		if (buf[i] != base_byte(i, sender))
			return mismatch(buf, i, len, base_byte(i, sender), sender, err);
	return 0;
}

/* small_want rebuilds a short chunk as the iteration with seed writes it. */
static void small_want(uint8_t *want, size_t off, size_t clen, size_t ci, uint64_t seed, int sender)
{
	for (size_t i = 0; i < clen;) { /* a word of the pattern at a time: the check of a small message is on its round trip */
		uint64_t v = base_word((off + i) / 8, sender);
		for (size_t b = (off + i) % 8; b < 8 && i < clen; b++, i++)
			want[i] = (uint8_t)(v >> (8 * b));
	}
	stamp_chunk(want, clen, ci, seed, sender);
}

/* op_edges writes op ci's edges (efx_edges) into rec. */
static void op_edges(uint8_t *rec, size_t off, size_t clen, size_t ci, uint64_t seed, int sender)
{
	if (clen <= EFX_EDGE) {
		small_want(rec, off, clen, ci, seed, sender);
		return;
	}
	uint64_t first = stamp_value(seed, ci, 0, sender), last = stamp_value(seed, ci, 1, sender);
	memcpy(rec, &first, 8);
	memcpy(rec + 8, &last, 8);
}

/* efx_edges writes into rec what iteration seed puts at the edges of each
 * op of plan p (EFX_EDGE bytes an op): an op of over 16 bytes has its two
 * stamps there, first and last word; a shorter one is there whole. With
 * the base pattern of a buffer that is never stamped they make the
 * iteration's payload (efx_gather). */
void efx_edges(uint8_t *rec, const efx_plan *p, uint64_t seed, int sender)
{
	for (uint64_t k = 0, off, clen; k < p->n; k++, rec += EFX_EDGE) {
		efx_plan_op(p, k, &off, &clen);
		op_edges(rec, off, clen, k, seed, sender);
	}
}

/* efx_gather lists the pieces of an op of len bytes whose edges are at
 * edges (efx_edges) and whose middle is at buf, the op's place in a buffer
 * of the base pattern: at most 3, in order. It returns how many. */
int efx_gather(const uint8_t *edges, const uint8_t *buf, size_t len, struct iovec iov[3])
{
	if (len <= EFX_EDGE) {
		iov[0] = (struct iovec){(void *)edges, len};
		return 1;
	}
	iov[0] = (struct iovec){(void *)edges, 8};
	iov[1] = (struct iovec){(void *)(buf + 8), len - 16};
	iov[2] = (struct iovec){(void *)(edges + 8), 8};
	return 3;
}

/* efx_scatter lists where the pieces of efx_gather land at a target that
 * keeps each op's edges apart from its middle: the edges at edges (a
 * record of EFX_EDGE bytes), the middle at mid + 8, mid being the op's
 * place in the target's buffer. It returns how many, as efx_gather. */
int efx_scatter(uint64_t edges, uint64_t mid, size_t len, uint64_t key, struct fi_rma_iov rma[3])
{
	if (len <= EFX_EDGE) {
		rma[0] = (struct fi_rma_iov){edges, len, key};
		return 1;
	}
	rma[0] = (struct fi_rma_iov){edges, 8, key};
	rma[1] = (struct fi_rma_iov){mid + 8, len - 16, key};
	rma[2] = (struct fi_rma_iov){edges + 8, 8, key};
	return 3;
}

/* torn reports whether every one of n bytes was seen in some seed's payload. */
static bool torn(const bool *seen, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!seen[i])
			return false;
	return true;
}

/* check_small compares a short chunk (stamps may overlap) with each seed's
 * rebuild: it must be one of them, whole. A chunk that is none of them
 * but holds, byte by byte, one of theirs may be a write landing as it is
 * read: EFX_TORN. */
static int check_small(const uint8_t *buf, size_t off, size_t clen, size_t len, size_t ci, const uint64_t *seeds,
		       int nseeds, int sender, char *err)
{
	uint8_t want[64];
	for (int s = nseeds - 1; s >= 0; s--) { /* the first seed last: its rebuild names the mismatch */
		small_want(want, off, clen, ci, seeds[s], sender);
		if (memcmp(buf + off, want, clen) == 0)
			return 0;
	}
	size_t i = 0;
	while (buf[off + i] == want[i])
		i++;
	mismatch(buf, off + i, len, want[i], sender, err);
	bool seen[64] = {false}; /* byte i is some seed's: off the path of a chunk that passes */
	for (int s = 0; s < nseeds; s++) {
		small_want(want, off, clen, ci, seeds[s], sender);
		for (size_t b = 0; b < clen; b++)
			seen[b] |= buf[off + b] == want[b];
	}
	return torn(seen, clen) ? EFX_TORN : -1;
}

/* stamp_in reports whether the 8 bytes at p hold stamp k of op ci under one of the seeds. */
static bool stamp_in(const uint8_t *p, size_t ci, int k, const uint64_t *seeds, int nseeds, int sender)
{
	uint64_t got;
	memcpy(&got, p, 8);
	for (int s = 0; s < nseeds; s++)
		if (got == stamp_value(seeds[s], ci, k, sender))
			return true;
	return false;
}

/* stamp_torn reports whether each byte at p is that byte of stamp k of op
 * ci under some seed: a stamp half overwritten by a later one's. */
static bool stamp_torn(const uint8_t *p, size_t ci, int k, const uint64_t *seeds, int nseeds, int sender)
{
	bool seen[8] = {false};
	for (int s = 0; s < nseeds; s++) {
		uint64_t v = stamp_value(seeds[s], ci, k, sender);
		for (int b = 0; b < 8; b++)
			seen[b] |= p[b] == ((const uint8_t *)&v)[b];
	}
	return torn(seen, 8);
}

static int check_chunk(const uint8_t *buf, size_t off, size_t clen, size_t len, size_t ci, const uint64_t *seeds,
		       int nseeds, int sender, bool full, char *err)
{
	if (clen <= 64)
		return check_small(buf, off, clen, len, ci, seeds, nseeds, sender, err);
	size_t pos[EFX_STAMPS];
	int n = stamps(clen, pos);
	size_t from = off;
	for (int k = 0; k < n; k++) {
		size_t at = off + pos[k];
		if (full && check_base(buf, from, at, len, sender, err))
			return -1;
		if (!stamp_in(buf + at, ci, k, seeds, nseeds, sender)) {
			uint64_t v = stamp_value(seeds[0], ci, k, sender);
			const uint8_t *want = (const uint8_t *)&v;
			size_t j = 0;
			while (j < 7 && buf[at + j] == want[j])
				j++;
			mismatch(buf, at + j, len, want[j], sender, err);
			return nseeds > 1 && stamp_torn(buf + at, ci, k, seeds, nseeds, sender) ? EFX_TORN : -1;
		}
		from = at + 8;
	}
	return full ? check_base(buf, from, off + clen, len, sender, err) : 0;
}

/* efx_check_any checks buf against plan p, where each op may hold what any
 * of the nseeds iterations wrote (later writes may have overwritten the
 * first seed's): every stamp must be one of theirs, and with full every
 * other byte the base pattern, which every iteration writes alike. A
 * mismatch names the first seed's byte. It returns 0, -1 for a mismatch,
 * or EFX_TORN for one that a write landing as it was read can explain (a
 * stamp whose every byte is one of the seeds' stamps'), which the caller
 * may read again. */
int efx_check_any(const uint8_t *buf, const efx_plan *p, const uint64_t *seeds, int nseeds, int sender, bool full,
		  char *err)
{
	for (uint64_t k = 0, off, clen; k < p->n; k++) {
		efx_plan_op(p, k, &off, &clen);
		int rc = check_chunk(buf, off, clen, p->size, k, seeds, nseeds, sender, full, err);
		if (rc)
			return rc;
	}
	return 0;
}

int efx_check(const uint8_t *buf, const efx_plan *p, uint64_t seed, int sender, bool full, char *err)
{
	return efx_check_any(buf, p, &seed, 1, sender, full, err);
}

/* efx_check_apart checks iteration seed of plan p landed apart
 * (efx_scatter): every op's edges in rec, EFX_EDGE bytes an op, exactly,
 * and with full every byte of its middle in buf, the base pattern, which
 * every iteration writes alike. A mismatch names the payload's byte. */
int efx_check_apart(const uint8_t *rec, const uint8_t *buf, const efx_plan *p, uint64_t seed, int sender, bool full,
		    char *err)
{
	uint8_t want[EFX_EDGE];
	for (uint64_t k = 0, off, clen; k < p->n; k++, rec += EFX_EDGE) {
		efx_plan_op(p, k, &off, &clen);
		op_edges(want, off, clen, k, seed, sender);
		size_t n = clen < EFX_EDGE ? clen : EFX_EDGE;
		for (size_t j = 0; j < n; j++)
			if (rec[j] != want[j]) /* the payload's byte: the first word's, or the last's */
				return wrong_byte(off + (j < 8 || clen <= EFX_EDGE ? j : clen - EFX_EDGE + j), p->size,
						  rec[j], want[j], sender, err);
		if (full && clen > EFX_EDGE && check_base(buf, off + 8, off + clen - 8, p->size, sender, err))
			return -1;
	}
	return 0;
}
