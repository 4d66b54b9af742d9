/*
 * write.c: one-sided RDMA write from rank 0 to its peers.
 *
 * Under single, split, per-op and adaptive rank 0 writes to each peer in
 * turn; under round-robin it writes to every peer at once, peer d's whole
 * buffer on rail d mod rails (the Libefaxx round-robin experiment).
 *
 * Each op carries the sender and iteration as remote CQ data, so a target
 * learns from its own CQs when every op of an iteration has landed, on
 * whatever rail; it checks the stamps and acks. The target's buffer is cut
 * into slots (as many as EFX_SLOT_BYTES holds, at least 1 (write_least),
 * at most the slots parameter): iteration i lands in slot i mod nslots. A
 * size over half of EFX_SLOT_BYTES gets one slot, and one source slot
 * where it cannot run ahead (below): two of each touched twice the
 * memory, which at 8 MiB filled this VM's L3 and cost shm 15-20% and tcp
 * 5-10%.
 *
 * The initiator keeps iterations in flight (streamer, below): as many as
 * the size's slots would be unrestricted, and at least 2 (write_ahead),
 * whatever the slots parameter, where the rails allow. With that many
 * slots it never overwrites a slot the target has not checked. With fewer
 * (one slot is the one reused buffer of osu_bw and fi_rma_bw) a later
 * write may land on a slot before or while the target checks it; the
 * target then accepts, stamp by stamp, the stamps of the iterations that
 * may have landed there, and checks the last iteration, which nothing
 * overwrites, exactly and in full. Where the rails allow (tcp), the
 * target lands each iteration's stamps apart from its payload instead,
 * and checks every one exactly in one slot's footprint (set_landing).
 *
 * Timing: the initiator's timed phase ends when the target has
 * acknowledged the last iteration, landed and checked (bytes delivered, so
 * initiator and target agree); its iterations are timed from one's local
 * completion to the next's. The target times landing to landing.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

/* efx_write_iteration writes iteration it, from src, to every stream and
 * waits for local completion. */
int efx_write_iteration(efx_ctx *c, const efx_plan *p, efx_stream *s, uint32_t ns, uint64_t it, uint64_t size,
			uint8_t *src)
{
	uint64_t slot_off = efx_slot_off(c, size, it);
	for (uint32_t i = 0; i < ns; i++)
		s[i].remote_off = (uint64_t)efx_region(0, s[i].peer) * c->region_len + slot_off;
	efx_xfer x = {.kind = OP_WRITE, .plan = p, .buf = src, .data = EFX_DATA(0, it), .nstreams = ns, .streams = s};
	return efx_xfer_run(c, &x, 1, "write completions");
}

/* efx_write_slots waits until every stream's target has verified v iterations. */
int efx_write_slots(efx_ctx *c, const efx_stream *s, uint32_t ns, uint64_t v)
{
	for (uint32_t i = 0; i < ns; i++)
		if (efx_wait_acks(c, s[i].peer, v))
			return -1;
	return 0;
}

/* in_order reports whether a write of size lands after the writes of the
 * same bytes posted before it (write_ahead, below). */
static bool in_order(const efx_ctx *c, uint64_t size)
{
	if (c->cfg.strategy == EFX_ADAPTIVE && c->nrails > 1)
		return false;
	uint64_t op = c->cfg.chunk && c->cfg.chunk < size ? c->cfg.chunk : size;
	for (uint32_t j = 0; j < c->nrails; j++)
		if (c->rail[j].fi->ep_attr->max_order_waw_size < op)
			return false;
	return true;
}

/* write_ahead is how many iterations rank 0 keeps in flight at size to n
 * streams: the slots the size would get unrestricted (efx_slots_for), at
 * least 2, at most a share of the ring of n-stream entries. Where that is
 * more than the size's slots, later writes land on slots not yet checked,
 * which needs them to land in the order they were posted: every rail
 * places overlapping writes in order (max_order_waw_size of an op at
 * least: tcp does, shm and efa do not promise it), and a byte goes on the
 * same rail in every iteration (not adaptive over rails, which moves ops
 * to the freest rail: on the testbed a later write passed an earlier one
 * on a slow rail and the check failed); and host memory (the GPU checks
 * one iteration's stamps). Without them it is 0: the writer keeps to its
 * slots. Both ends compute it. */
static uint32_t write_ahead(const efx_ctx *c, const efx_writer *w, uint64_t size, uint32_t n)
{
	if (!in_order(c, size) || c->cfg.memory == EFX_MEMORY_DEVICE)
		return 0;
	uint32_t a = efx_slots_for(c, size, EFX_MAX_SLOTS, 2), pool = w->npool / n;
	return a < pool ? a : pool;
}

/* write_least is the fewest target slots a size gets: 1 (and the source
 * 1 where the writer cannot run ahead), which keeps a large size's
 * buffers to one of each. On GPU memory it stays 2, as measured there. */
static uint32_t write_least(const efx_ctx *c) { return c->cfg.memory == EFX_MEMORY_DEVICE ? 2 : 1; }

/* slots_least is the fewest target slots of loop l: write's own loops set
 * it (write_least); the proxy's, which share these sides, keep 2. */
static uint32_t slots_least(const efx_loop *l) { return l->least ? l->least : 2; }

/* reach is how far the writer runs ahead of the target's acks: its slots,
 * or the iterations it keeps in flight when more. */
static uint32_t reach(const efx_loop *l) { return l->ahead > l->c->nslots ? l->ahead : l->c->nslots; }

/*
 * Edges apart. A writer that gathers (efx_gathers) sends each op as three
 * pieces: its first word and its last, the iteration's stamps, and its
 * middle, the base pattern, the same bytes in every iteration. Where the
 * rails take three remote pieces an op and land writes in order
 * (in_order), the target lands them apart too (efx_scatter): the stamps
 * in a record of the iteration's own (reach of them, 16 bytes an op) and
 * every middle in one place, iteration 0's in slot 0 and every later
 * one's in slot 1. A record is never written again before its check, so
 * every iteration's stamps are checked exactly, as in a slot of its own;
 * a later middle that lands on one not yet checked changes no byte; and
 * the last iteration's middle, which lands last, is checked in full, as
 * is iteration 0's in its own slot. The kernel or NIC then lands each
 * write in one buffer of the size, as fi_rma_bw's, not in 2 MiB of slots
 * (on a 16-core host no faster: 0.99 of the slots' rate at tcp 64 KiB,
 * docs/performance.md), and `slots = 1` is checked exactly too. The
 * region has room for them at every size (efx_fabric_open), so a size
 * lands alike alone and in a sweep. set_landing decides it on both ends.
 */
static void set_landing(efx_loop *l)
{
	efx_ctx *c = l->c;
	uint64_t stride = efx_stride(l->size), rec = efx_edge_rec(&l->plan);
	l->edges_at = l->edge_len = 0;
	if (!l->apart || !efx_gathers(c, &l->plan) || !in_order(c, l->size) ||
	    2 * stride + reach(l) * rec > c->region_len)
		return;
	for (uint32_t j = 0; j < c->nrails; j++)
		if (c->rail[j].fi->tx_attr->rma_iov_limit < 3)
			return;
	l->edges_at = 2 * stride;
	l->edge_len = rec;
}

/* land_off is where iteration it's payload lands in a region: its slot,
 * or with the edges apart its middle's slot (0 or 1). */
static uint64_t land_off(const efx_loop *l, uint64_t it)
{
	if (l->edges_at)
		return it == 0 ? 0 : efx_stride(l->size);
	return efx_slot_off(l->c, l->size, it);
}

/* edges_off is where iteration it's edge record lands in a region, with the edges apart. */
static uint64_t edges_off(const efx_loop *l, uint64_t it) { return l->edges_at + (it % reach(l)) * l->edge_len; }

static int write_sync(efx_ctx *c, const efx_stream *s, uint32_t ns)
{
	for (uint32_t i = 0; i < ns; i++)
		if (efx_pair_sync(c, s[i].peer))
			return -1;
	return 0;
}

static int initiator_start(efx_loop *l)
{
	const efx_writer *w = l->state;
	efx_set_slots(l->c, l->size, slots_least(l));
	for (uint32_t i = 0; i < w->n; i++)
		l->c->acked[w->streams[i].peer] = l->c->landed[w->streams[i].peer] = 0;
	return 0;
}

/* initiator_sync meets every target once it has verified it iterations. */
static int initiator_sync(efx_loop *l, uint64_t it)
{
	const efx_writer *w = l->state;
	return efx_write_slots(l->c, w->streams, w->n, it) || write_sync(l->c, w->streams, w->n) ? -1 : 0;
}

/* initiator_ready waits until the slot of iteration it has been verified by its last user. */
static int initiator_ready(efx_loop *l, uint64_t it)
{
	const efx_writer *w = l->state;
	uint32_t slots = l->c->nslots;
	return efx_write_slots(l->c, w->streams, w->n, it >= slots ? it - slots + 1 : 0);
}

static int initiator_iteration(efx_loop *l, uint64_t it)
{
	efx_writer *w = l->state;
	return efx_write_iteration(l->c, &l->plan, w->streams, w->n, it, l->size, l->src);
}

static int initiator_finish(efx_loop *l, efx_sample *s)
{
	const efx_writer *w = l->state;
	s->bytes_sent = l->size * w->n;
	return efx_write_slots(l->c, w->streams, w->n, l->total);
}

/* efx_write_initiator is the proxy's CPU side: it writes each iteration to
 * the streams of its efx_writer state, one at a time, and times post to
 * local completion, as the proxy's GPU side does. */
const efx_side efx_write_initiator = {.start = initiator_start, .sync = initiator_sync, .ready = initiator_ready,
				      .iteration = initiator_iteration, .finish = initiator_finish, .stamps = true};

/*
 * The write benchmark's own initiator (efx_streamer; send's too, posting
 * sends) keeps iterations in flight: up to depth of them (write_ahead),
 * their ops filling the rails' windows oldest first. Each goes from one
 * unstamped source buffer with its own edges (stamps) gathered in where
 * the rails allow (efx_set_src), else from its own stamped source slot.
 * An iteration may start once the one depth before it has completed
 * locally (its edges or slot are free) and the target has verified the
 * one reach before it. Its time runs from
 * its start, or the previous iteration's end if that came later, to the
 * local completion of its last op (seen in order): the time it had the
 * rails to itself, a buffer's time as when one is in flight, not its wait
 * behind the iterations before it. The last iteration ends when the target
 * has acknowledged it, landed and checked, so the timed phase counts bytes
 * delivered, not bytes handed to the provider.
 */

/* flight is the ring entry of iteration it, and its streams' cursors. */
static efx_xfer *flight(efx_writer *w, uint64_t it, efx_stream **streams)
{
	uint32_t k = (uint32_t)(it % w->depth);
	if (streams)
		*streams = &w->pool[(size_t)k * w->n];
	return &w->ring[k];
}

/* retire ends the iterations in flight that have completed, oldest first,
 * and times the timed ones from their start or the previous end. Those
 * whose completions came in one CQ read share the time since then evenly:
 * a read that returns a batch says nothing of the order within it. */
static void retire(efx_ctx *c, efx_writer *w)
{
	uint64_t k = 0;
	while (w->tail + k < w->head && efx_xfer_done(flight(w, w->tail + k, NULL)))
		k++;
	if (k == 0)
		return;
	int64_t now = efx_now(), from = w->started[w->tail % w->depth];
	int64_t each = (now - (from > w->ended ? from : w->ended)) / (int64_t)k;
	for (; k > 0; k--, w->tail++)
		if (w->tail >= w->loop->first)
			c->lat[w->tail - w->loop->first] = each;
	w->ended = now;
}

/* fill posts what the windows allow of the iterations in flight, oldest
 * first: an op never passes an earlier iteration's, which may write the
 * same slot. */
static int fill(efx_ctx *c, efx_writer *w)
{
	for (uint64_t it = w->tail; it < w->head; it++)
		if (efx_xfer_fill(c, flight(w, it, NULL)))
			return -1;
	return 0;
}

/* pump posts what it can (fill), reads the CQs once and retires what
 * completed. Hot loop. */
static int pump(efx_ctx *c, efx_writer *w, const char *what)
{
	if (fill(c, w) || efx_progress(c) < 0 || efx_stalled(c, what))
		return -1;
	retire(c, w);
	return 0;
}

/* acked reports whether every stream's target has acknowledged v
 * iterations: checked, or with landed, landed at least. */
static bool acked(const efx_ctx *c, const efx_writer *w, uint64_t v, bool landed)
{
	for (uint32_t i = 0; i < w->n; i++)
		if ((landed ? c->landed : c->acked)[w->streams[i].peer] < v)
			return false;
	return true;
}

/* drain waits until every iteration in flight has completed and the
 * targets have acknowledged v iterations (checked, or landed). */
static int drain(efx_ctx *c, efx_writer *w, uint64_t v, bool landed)
{
	while (w->tail < w->head || !acked(c, w, v, landed))
		if (pump(c, w, w->tail < w->head ? "write completions" : "the target's acknowledgement"))
			return -1;
	return 0;
}

static int stream_start(efx_loop *l)
{
	efx_ctx *c = l->c;
	efx_writer *w = l->state;
	if (initiator_start(l))
		return -1;
	uint32_t depth = reach(l); /* npool holds a ring of at least one iteration */
	if (depth > w->npool / w->n)
		depth = w->npool / w->n;
	if (efx_set_src(c, &l->plan, depth))
		return -1;
	set_landing(l);
	w->depth = depth < c->src_n ? depth : c->src_n;
	w->head = w->tail = 0;
	w->loop = l;
	return 0;
}

/* stream_sync meets every target with nothing in flight and every
 * iteration before it verified. */
static int stream_sync(efx_loop *l, uint64_t it)
{
	efx_writer *w = l->state;
	return drain(l->c, w, it, false) || write_sync(l->c, w->streams, w->n) ? -1 : 0;
}

/* stream_ready waits until iteration it may start: the one depth before
 * it completed, and the one reach before it verified. */
static int stream_ready(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	efx_writer *w = l->state;
	uint64_t need = it >= reach(l) ? it - reach(l) + 1 : 0;
	while (w->head - w->tail >= w->depth || !acked(c, w, need, false))
		if (pump(c, w, w->head - w->tail >= w->depth ? "write completions" : "the target's acknowledgement"))
			return -1;
	return 0;
}

/* stream_iteration starts iteration it, from l->src, and posts what the
 * windows allow; the last one waits until every iteration is delivered
 * and verified, which its time includes. */
static int stream_iteration(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	efx_writer *w = l->state;
	efx_stream *ss;
	efx_xfer *x = flight(w, it, &ss);
	for (uint32_t i = 0; i < w->n; i++) {
		uint64_t region = (uint64_t)efx_region(0, w->streams[i].peer) * c->region_len;
		ss[i] = w->streams[i];
		ss[i].remote_off = region + land_off(l, it);
		ss[i].edges_off = l->edges_at ? region + edges_off(l, it) : 0;
	}
	*x = (efx_xfer){.kind = w->kind, .plan = &l->plan, .buf = l->src, .data = EFX_DATA(0, it),
			.edges = c->gather ? efx_src_edges(c, it) : NULL, .nstreams = w->n, .streams = ss};
	efx_xfer_start(c, x);
	w->started[it % w->depth] = efx_now();
	w->head = it + 1;
	if (fill(c, w))
		return -1;
	if (it + 1 < l->total)
		return 0;
	if (drain(c, w, l->total, true))
		return -1;
	if (it >= l->first) /* the last iteration ends when it has landed, after its local completion */
		c->lat[it - l->first] += efx_now() - w->ended;
	return 0;
}

const efx_side efx_streamer = {.start = stream_start, .sync = stream_sync, .ready = stream_ready,
			       .iteration = stream_iteration, .finish = initiator_finish, .stamps = true,
			       .times = true};

static int target_start(efx_loop *l)
{
	efx_set_slots(l->c, l->size, slots_least(l));
	set_landing(l);
	return 0;
}

static int target_sync(efx_loop *l, uint64_t it) { return efx_pair_sync(l->c, 0); }

static int target_iteration(efx_loop *l, uint64_t it) { return efx_wait_landed(l->c, 0, l->plan.n, it); }

/* Reading a slot that a later write may be landing on (shm, a NIC's DMA)
 * can catch a stamp half-written: one whose every byte is one of the
 * stamps the slot may hold (EFX_TORN) is read again, for this long, before
 * it counts as wrong. Any other wrong stamp fails at once: a later write
 * that overwrote it would hide it. */
#define EFX_REREAD_NS 100000000LL

/* target_verify checks iteration it in its slot and acks it when due. The
 * writer has not started an iteration reach or more past the last ack,
 * which came before this check: the slot holds it, or one of the later
 * iterations that land there before it. */
static int target_verify(efx_loop *l, uint64_t it)
{
	efx_ctx *c = l->c;
	const uint8_t *region = c->buf[BUF_DST].ptr + (uint64_t)efx_region(0, c->info->rank) * c->region_len;
	const uint8_t *buf = region + land_off(l, it);
	bool last = it == l->total - 1, full = it == 0 || last;
	if (last && efx_send_ack(c, 0, it + 1, true)) /* landed: the writer's clock stops, not waiting for the full check */
		return -1;
	if (l->edges_at) {
		if (efx_check_apart(region + edges_off(l, it), buf, &l->plan, efx_seed(l->size, 0, it), 0, full, c->err))
			return -1;
		return efx_ack_due(l, it, reach(l)) ? efx_send_ack(c, 0, it + 1, false) : 0;
	}
	uint64_t seeds[EFX_MAX_SLOTS];
	int n = 0;
	for (uint64_t j = it; j < l->total && j < it + reach(l); j += c->nslots)
		seeds[n++] = efx_seed(l->size, 0, j);
	if (n == 1 && efx_mem_check(c, buf, &l->plan, seeds[0], 0, full))
		return -1;
	for (int64_t until = efx_now() + EFX_REREAD_NS, rc; n > 1 && (rc = efx_check_any(buf, &l->plan, seeds, n, 0, full, c->err));)
		if (rc != EFX_TORN || efx_now() > until || efx_progress(c) < 0)
			return -1;
	return efx_ack_due(l, it, reach(l)) ? efx_send_ack(c, 0, it + 1, false) : 0;
}

/* efx_ack_due says whether a target acks after checking iteration it,
 * for a sender that runs reach iterations ahead of the acks: every
 * quarter of the reach (fewer acks, the same guarantee), at the end of
 * the warm-up and at the last. */
bool efx_ack_due(const efx_loop *l, uint64_t it, uint32_t reach)
{
	uint64_t every = reach > 4 ? reach / 4 : 1;
	return (it + 1) % every == 0 || it + 1 == l->warmup || it + 1 == l->total;
}

static int target_finish(efx_loop *l, efx_sample *s)
{
	s->bytes_recv = l->size;
	return 0;
}

/* efx_write_target is a peer's side: it times one landing to the next,
 * and checks and acks each iteration between them. */
const efx_side efx_write_target = {.start = target_start, .sync = target_sync, .iteration = target_iteration,
				   .verify = target_verify, .finish = target_finish, .lands = true};

static int pair(efx_ctx *c, void *state, uint64_t size, int peer, efx_sample *s)
{
	efx_writer *w = state;
	efx_loop l = {.c = c, .state = w, .size = size, .peer = peer, .ahead = write_ahead(c, w, size, 1),
		      .least = write_least(c), .apart = true};
	if (c->info->rank != 0)
		return efx_loop_run(&efx_write_target, &l, s) ? -1 : 1;
	w->streams[0] = (efx_stream){.peer = peer, .rail = efx_stream_rail(c, 0, peer)};
	w->n = 1;
	return efx_loop_run(&efx_streamer, &l, s) ? -1 : 1;
}

/* all_at_once is round-robin: rank 0 writes to every peer together. */
static int all_at_once(efx_ctx *c, efx_writer *w, uint64_t size, efx_sample *s)
{
	efx_loop l = {.c = c, .state = w, .size = size, .peer = 0, .all = true,
		      .ahead = write_ahead(c, w, size, (uint32_t)c->info->world - 1), .least = write_least(c),
		      .apart = true};
	if (c->info->rank != 0) {
		s->peer = 0;
		s->role = EFX_ROLE_TARGET;
		return efx_loop_run(&efx_write_target, &l, s);
	}
	w->n = (uint32_t)c->info->world - 1;
	for (uint32_t i = 0; i < w->n; i++)
		w->streams[i] = (efx_stream){.peer = (int)i + 1, .rail = efx_stream_rail(c, 0, (int)i + 1)};
	s->peer = l.peer = w->n == 1 ? 1 : -1;
	s->role = EFX_ROLE_INITIATOR;
	return efx_loop_run(&efx_streamer, &l, s);
}

static int write_open(efx_ctx *c, void **state)
{
	efx_writer *w = calloc(1, sizeof *w);
	size_t world = (size_t)c->info->world;
	if (w) {
		w->kind = OP_WRITE;
		w->npool = world > EFX_MAX_SLOTS ? (uint32_t)world : EFX_MAX_SLOTS;
		w->streams = calloc(world, sizeof *w->streams);
		w->pool = calloc(w->npool, sizeof *w->pool);
	}
	*state = w;
	if (!w || !w->streams || !w->pool)
		return efx_fail(c->err, "write: out of memory");
	return efx_fabric_open(c, (efx_net){.acks = true});
}

static int write_run(efx_ctx *c, void *state, uint64_t size, efx_sample *out, int *n)
{
	if (c->cfg.strategy != EFX_ROUND_ROBIN)
		return efx_each_peer(c, state, size, out, n, pair);
	if (all_at_once(c, state, size, &out[0]))
		return -1;
	*n = 1;
	return 0;
}

static void write_close(efx_ctx *c, void *state)
{
	efx_writer *w = state;
	if (w) {
		free(w->streams);
		free(w->pool);
	}
	free(w);
}

const efx_bench efx_write = {.name = "write", .open = write_open, .run = write_run, .close = write_close};
