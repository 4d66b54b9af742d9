/*
 * ops.c: posting operations and reaping their completions on every rail.
 *
 * Progress is manual on tcp;ofi_rxm and shm: nothing moves unless this
 * rank reads its CQs, so every wait loop calls efx_progress, and every wait
 * gives up when nothing has completed for cfg.timeout_ns.
 *
 * A post the provider refuses with -FI_EAGAIN goes to its rail's pending
 * queue, and so does every later post on that rail until the queue is
 * empty (order is kept: a receiver matches sends in order). The queue is
 * retried only after that rail's CQ has been read, never on every post:
 * retrying the head on each post is what libfabric-efa-demo found to cost
 * the most after pinning and batching.
 */
#include <poll.h>
#include <sched.h>
#include <string.h>

#include "efx.h"

int efx_stalled(efx_ctx *c, const char *what)
{
	if (c->idle_polls == 0 || c->idle_polls % EFX_IDLE_CHECK)
		return 0; /* the clock is read only every EFX_IDLE_CHECK empty polls (idle) */
	int64_t idle = c->idle_now - c->last_progress;
	if (idle <= c->cfg.timeout_ns)
		return 0;
	return efx_fail(c->err, "waiting for %s: nothing completed for %.1f s (timeout; is the peer alive?)",
			what, idle / 1e9);
}

/* op_name is the libfabric call that posts op. */
static const char *op_name(const efx_op *op)
{
	switch (op->kind) {
	case OP_SEND:
		return op->edges ? "fi_sendmsg" : "fi_send";
	case OP_WRITE:
		return op->delivered || op->edges ? "fi_writemsg" : "fi_writedata";
	case OP_RECV:
		return "fi_recv";
	case OP_ACK:
		return "fi_recv (ack)";
	}
	return "?";
}

static int cq_error(efx_ctx *c, efx_rail *r)
{
	struct fi_cq_err_entry e = {0};
	char buf[256];
	ssize_t rc = fi_cq_readerr(r->cq, &e, 0);
	if (rc < 0)
		return efx_fail_fi(c->err, "fi_cq_readerr", rc, " on rail %u, reading a completion error", r->index);
	const char *prov = fi_cq_strerror(r->cq, e.prov_errno, e.err_data, buf, sizeof buf);
	const efx_op *op = e.op_context;
	return efx_fail_at(c->err, "fi_cq_read on rail %u (%s): %s failed: %s (provider: %s)", r->index,
			   r->fi->domain_attr->name, op ? op_name(op) : "an operation", fi_strerror(e.err),
			   prov ? prov : "?");
}

/* efx_take returns an idle context of rail r; callers keep within the
 * window, so the pool of 2 * window never runs dry. */
efx_op *efx_take(efx_rail *r)
{
	efx_op *op = r->free;
	r->free = op->next;
	return op;
}

static void give_back(efx_rail *r, efx_op *op)
{
	op->next = r->free;
	r->free = op;
}

static ssize_t post_now(efx_op *op)
{
	efx_rail *r = op->rail;
	switch (op->kind) {
	case OP_SEND: {
		if (op->inject)
			return fi_inject(r->ep, op->buf, op->len, r->addrs[op->peer]);
		if (!op->edges)
			return fi_send(r->ep, op->buf, op->len, op->desc, r->addrs[op->peer], &op->fi);
		struct iovec iov[3];
		size_t n = (size_t)efx_gather(op->edges, op->buf, op->len, iov);
		void *desc[3] = {op->desc, op->desc, op->desc};
		struct fi_msg msg = {.msg_iov = iov, .desc = desc, .iov_count = n, .addr = r->addrs[op->peer],
				     .context = &op->fi};
		return fi_sendmsg(r->ep, &msg, 0);
	}
	case OP_WRITE: {
		if (op->inject)
			return fi_inject_writedata(r->ep, op->buf, op->len, op->data, r->addrs[op->peer], op->raddr,
						   r->remote[op->peer].key);
		if (!op->delivered && !op->edges)
			return fi_writedata(r->ep, op->buf, op->len, op->desc, op->data, r->addrs[op->peer], op->raddr,
					    r->remote[op->peer].key, &op->fi);
		struct iovec iov[3] = {{op->buf, op->len}};
		size_t n = op->edges ? (size_t)efx_gather(op->edges, op->buf, op->len, iov) : 1;
		void *desc[3] = {op->desc, op->desc, op->desc}; /* the edges are in the source buffer too */
		uint64_t key = r->remote[op->peer].key;
		struct fi_rma_iov rma[3] = {{op->raddr, op->len, key}};
		size_t nr = op->redges ? (size_t)efx_scatter(op->redges, op->raddr, op->len, key, rma) : 1;
		struct fi_msg_rma msg = {.msg_iov = iov, .desc = desc, .iov_count = n, .addr = r->addrs[op->peer],
					 .rma_iov = rma, .rma_iov_count = nr, .context = &op->fi, .data = op->data};
		return fi_writemsg(r->ep, &msg, FI_REMOTE_CQ_DATA | (op->delivered ? FI_DELIVERY_COMPLETE : 0));
	}
	case OP_RECV:
	case OP_ACK:
		return fi_recv(r->ep, op->buf, op->len, op->desc, FI_ADDR_UNSPEC, &op->fi);
	}
	return -FI_EINVAL;
}


/* posted finishes an op the provider took: an injected one is complete
 * already (its buffer copied, no completion will come), the rest wait for
 * theirs. */
static void posted(efx_op *op)
{
	if (!op->inject)
		return;
	op->rail->tx_inflight--;
	(*op->done)++;
	give_back(op->rail, op);
}

/* efx_post posts op now, or queues it behind the ops its rail refused. */
int efx_post(efx_ctx *c, efx_op *op)
{
	efx_rail *r = op->rail;
	if (!r->pend_head) {
		ssize_t rc = post_now(op);
		if (rc == 0) {
			posted(op);
			return 0;
		}
		if (rc != -FI_EAGAIN)
			return efx_fail_fi(c->err, op_name(op), rc, " on rail %u", r->index);
	}
	op->next = NULL;
	c->requeued++;
	if (r->pend_tail)
		r->pend_tail->next = op;
	else
		r->pend_head = op;
	r->pend_tail = op;
	return 0;
}

/* drain posts r's pending ops in order until the provider refuses one. */
static int drain(efx_ctx *c, efx_rail *r)
{
	while (r->pend_head) {
		efx_op *op = r->pend_head;
		ssize_t rc = post_now(op);
		if (rc == -FI_EAGAIN)
			return 0;
		if (rc)
			return efx_fail_fi(c->err, op_name(op), rc, " on rail %u", r->index);
		r->pend_head = op->next;
		if (!r->pend_head)
			r->pend_tail = NULL;
		posted(op);
	}
	return 0;
}

/* landing is where sender's writes of the iteration tagged it are counted:
 * by iteration, not slot (a writer may run up to EFX_MAX_SLOTS iterations
 * ahead of the acks, past its slots); each op's CQ data names its
 * iteration. */
static size_t landing(const efx_ctx *c, int sender, uint64_t it)
{
	return (size_t)efx_region(sender, c->info->rank) * EFX_MAX_SLOTS + (it & (EFX_MAX_SLOTS - 1));
}

static void on_remote_write(efx_ctx *c, uint64_t data)
{
	uint32_t tag = EFX_DATA_TAG(data);
	size_t i = landing(c, EFX_DATA_SENDER(data), tag);
	c->wr_count[i]++;
	c->wr_tag[i] = tag;
}

/* time_rail learns how long rail r takes per byte: the time op spent at
 * the head of the rail's queue, from its post or the previous completion,
 * whichever is later; a moving average over the last few ops. */
static void time_rail(efx_rail *r, const efx_op *op)
{
	int64_t now = efx_now(), from = op->posted_at > r->last_done ? op->posted_at : r->last_done;
	double sample = (double)(now - from) / (double)(op->len ? op->len : 1);
	r->ns_per_byte = r->ns_per_byte > 0 ? 0.75 * r->ns_per_byte + 0.25 * sample : sample;
	r->last_done = now;
}

static int on_op(efx_ctx *c, efx_rail *r, efx_op *op, size_t len)
{
	switch (op->kind) {
	case OP_SEND:
	case OP_WRITE:
		r->tx_inflight--;
		if (op->posted_at)
			time_rail(r, op);
		break;
	case OP_RECV:
		r->rx_inflight--;
		if (len != op->len)
			return efx_fail_at(c->err, "fi_cq_read on rail %u: a receive of %zu bytes completed with %zu",
					   r->index, op->len, len);
		break;
	case OP_ACK: {
		efx_ack a = ((efx_ack *)c->buf[BUF_CTL].ptr)[op->index];
		if ((int)a.from < c->info->world && !a.landed && a.value > c->acked[a.from])
			c->acked[a.from] = a.value;
		if ((int)a.from < c->info->world && a.value > c->landed[a.from])
			c->landed[a.from] = a.value;
		return efx_post(c, op); /* ack receives stay posted; never pooled */
	}
	}
	(*op->done)++;
	give_back(r, op);
	return 0;
}

/* poll_rail reads one rail's CQ once; it returns how many completions, or -1. */
static int poll_rail(efx_ctx *c, efx_rail *r)
{
	struct fi_cq_data_entry e[16];
	ssize_t n = fi_cq_read(r->cq, e, 16);
	if (n == -FI_EAGAIN)
		n = 0;
	else if (n == -FI_EAVAIL)
		return cq_error(c, r);
	else if (n < 0)
		return efx_fail_fi(c->err, "fi_cq_read", n, " on rail %u", r->index);
	for (ssize_t i = 0; i < n; i++) {
		if (e[i].flags & FI_REMOTE_WRITE)
			on_remote_write(c, e[i].data);
		else if (on_op(c, r, e[i].op_context, e[i].len))
			return -1;
	}
	if (r->pend_head && drain(c, r))
		return -1;
	return (int)n;
}

/* wait_fds blocks until a rail's wait object (FI_WAIT_FD) fires, or for
 * at most 1 ms (so that deadlines are still checked), when libfabric says
 * nothing is left to progress first (fi_trywait). It returns 0 after it
 * waited or found work, -1 when the rails have no wait fds. */
static int wait_fds(efx_ctx *c)
{
	struct pollfd fds[EFX_MAX_RAILS];
	for (uint32_t j = 0; j < c->nrails; j++) {
		efx_rail *r = &c->rail[j];
		struct fid *cq = &r->cq->fid;
		if (r->wait_fd < 0)
			return -1;
		if (fi_trywait(r->fabric, &cq, 1) != FI_SUCCESS)
			return 0; /* completions or progress pending: poll again */
		fds[j] = (struct pollfd){.fd = r->wait_fd, .events = POLLIN};
	}
	poll(fds, c->nrails, 1);
	return 0;
}

/* idle runs every EFX_IDLE_CHECK CQ reads that found nothing in a row,
 * and never sleeps: the providers here move data only inside fi_cq_read,
 * so a sleeping target starves the transfer (a 10 us nap after 1 ms idle
 * cost tcp 38% of its 64 MiB write rate against fi_rma_bw). A rank that
 * has its own core spins, and after 1 ms without a completion yields
 * between reads, which costs nothing when no other task wants the core. A
 * rank that shares its core with other ranks (c->yield) gives it away
 * after 20 us: it blocks on the provider's wait object where the provider
 * has one (tcp: FI_WAIT_FD), and yields where it has none (shm, whose own
 * wait is a yield). An idle stretch starts at its first check. */
static void idle(efx_ctx *c)
{
	int64_t spin = c->yield ? 20000 : 1000000; /* ns */
	c->idle_now = efx_now();
	if (c->idle_polls == EFX_IDLE_CHECK)
		c->last_progress = c->idle_now;
	if (c->idle_now - c->last_progress < spin)
		return;
	if (!c->yield || wait_fds(c) < 0)
		sched_yield();
}

/* efx_progress reads every rail's CQ once; it returns how many completions,
 * or -1. Hot loop: an empty read costs one fi_cq_read per rail and a
 * counter; the clock is read only every EFX_IDLE_CHECK of them. */
int efx_progress(efx_ctx *c)
{
	int total = 0;
	for (uint32_t j = 0; j < c->nrails; j++) {
		int n = poll_rail(c, &c->rail[j]);
		if (n < 0)
			return -1;
		total += n;
	}
	if (total)
		c->idle_polls = 0;
	else if (++c->idle_polls % EFX_IDLE_CHECK == 0)
		idle(c);
	return total;
}

/* efx_post_acks posts the ack receives a writer keeps open, on rail 0. */
int efx_post_acks(efx_ctx *c)
{
	efx_rail *r = &c->rail[0];
	for (uint32_t i = 0; i < EFX_ACKS; i++) {
		efx_op *op = &c->acks[i];
		*op = (efx_op){.rail = r, .kind = OP_ACK, .index = i, .buf = (efx_ack *)c->buf[BUF_CTL].ptr + i,
			       .len = sizeof(efx_ack), .desc = r->desc[BUF_CTL]};
		if (efx_post(c, op))
			return -1;
	}
	return 0;
}

/* efx_send_ack tells peer that value of its iterations have landed and
 * been checked, or with landed, only landed. */
int efx_send_ack(efx_ctx *c, int peer, uint64_t value, bool landed)
{
	efx_rail *r = &c->rail[0];
	efx_ack a = {.from = (uint32_t)c->info->rank, .landed = landed, .value = value};
	for (;;) {
		ssize_t rc = fi_inject(r->ep, &a, sizeof a, r->addrs[peer]);
		if (rc == 0)
			return 0;
		if (rc != -FI_EAGAIN)
			return efx_fail_fi(c->err, "fi_inject", rc, " (ack to rank %d)", peer);
		if (efx_progress(c) < 0 || efx_stalled(c, "room to send an ack"))
			return -1;
	}
}

/* efx_wait_acks waits until peer has acknowledged n iterations. */
int efx_wait_acks(efx_ctx *c, int peer, uint64_t n)
{
	while (c->acked[peer] < n)
		if (efx_progress(c) < 0 || efx_stalled(c, "the target's acknowledgement"))
			return -1;
	return 0;
}

/* efx_slots_for is how many slots of size a writer may use, a power of two
 * (a 16-bit tag names the slot) up to most: as many as EFX_SLOT_BYTES
 * holds, at least least (1 or 2), never more than a region holds. The
 * count depends on the size, not on the sweep's largest size. */
uint32_t efx_slots_for(const efx_ctx *c, uint64_t size, uint32_t most, uint32_t least)
{
	uint64_t stride = efx_stride(size);
	uint64_t fit = EFX_SLOT_BYTES / stride;
	if (fit < least)
		fit = least;
	if (fit > c->region_len / stride)
		fit = c->region_len / stride;
	uint32_t n = 1;
	while (n * 2 <= fit && n * 2 <= most)
		n *= 2;
	return n;
}

/* efx_set_slots cuts each dst region into the slots of size (efx_slots_for,
 * up to the slots asked for, at least least). Rotating slots let a writer
 * stream without waiting for each verification; one slot reuses one
 * buffer, as osu_bw and fi_rma_bw do. */
void efx_set_slots(efx_ctx *c, uint64_t size, uint32_t least)
{
	uint32_t most = c->cfg.slots && c->cfg.slots < EFX_MAX_SLOTS ? c->cfg.slots : EFX_MAX_SLOTS;
	c->nslots = efx_slots_for(c, size, most, least);
	memset(c->wr_count, 0, (size_t)c->regions * EFX_MAX_SLOTS * sizeof *c->wr_count);
}

/* efx_gathers reports whether plan p's writes (or sends) go from one
 * unstamped buffer with their edges gathered in (efx_gather, efx_set_src):
 * a source laid out per size with room for one slot and a record, host
 * memory (the GPU stamps its own slots), three pieces an op on every
 * rail, and ops too big to inject, which takes one piece. Both ends can
 * tell: a target lands the edges apart only from a writer that gathers. */
bool efx_gathers(const efx_ctx *c, const efx_plan *p)
{
	uint64_t off, len;
	efx_plan_op(p, 0, &off, &len); /* the first op is the largest */
	if (c->src_slots || c->buf[BUF_SRC].len < efx_stride(p->size) + efx_edge_rec(p) ||
	    c->cfg.memory == EFX_MEMORY_DEVICE)
		return false;
	for (uint32_t j = 0; j < c->nrails; j++)
		if (c->rail[j].fi->tx_attr->iov_limit < 3 || len <= c->rail[j].inject_size)
			return false;
	return true;
}

/* efx_set_src lays the source out for n iterations of plan p in flight:
 * n slots of its size (as many as fit, at least 1), each holding the
 * sender pattern from its own start, written again only when the slots
 * written last do not serve, off the clock. Where its writes can gather
 * (gathers), one slot serves every iteration, and n small records after
 * it (as many as fit) hold each iteration's edges: the kernel or NIC then
 * reads one hot buffer, not n. The proxy's fixed slots stay as they are. */
int efx_set_src(efx_ctx *c, const efx_plan *p, uint32_t n)
{
	uint64_t size = p->size, stride = efx_stride(size), len = c->buf[BUF_SRC].len;
	c->gather = false;
	if (c->src_slots)
		return 0;
	uint64_t rec = efx_edge_rec(p);
	if (efx_gathers(c, p)) {
		if (n > (len - stride) / rec)
			n = (uint32_t)((len - stride) / rec);
		if (c->src_len < size) {
			c->src_len = 0;
			if (efx_mem_fill(c, c->buf[BUF_SRC].ptr, size, c->info->rank))
				return -1;
		}
		/* the records overwrite what lay past slot 0 */
		c->src_filled = 1;
		c->src_stride = stride;
		c->src_len = size;
		c->gather = true;
		c->edges = c->buf[BUF_SRC].ptr + stride;
		c->edge_len = rec;
		c->src_n = n;
		return 0;
	}
	if (n > len / stride)
		n = (uint32_t)(len / stride);
	if (n < 1)
		n = 1;
	/* slot 0 starts at 0 in every layout; the others only in the same one */
	bool serve = c->src_len >= size && (n == 1 || (c->src_stride == stride && c->src_filled >= n));
	if (!serve) {
		c->src_filled = c->src_len = 0; /* a fill that fails half-way serves nothing */
		for (uint32_t s = 0; s < n; s++)
			if (efx_mem_fill(c, c->buf[BUF_SRC].ptr + s * stride, size, c->info->rank))
				return -1;
		c->src_stride = stride;
		c->src_filled = n;
		c->src_len = size;
	}
	c->src_n = n;
	return 0;
}

/* efx_wait_landed waits until the n writes of sender's iteration it have
 * landed (landing), checks they were that iteration's, and frees its count. */
int efx_wait_landed(efx_ctx *c, int sender, uint64_t n, uint64_t it)
{
	size_t i = landing(c, sender, it);
	while (c->wr_count[i] < n)
		if (efx_progress(c) < 0 || efx_stalled(c, "remote writes to land"))
			return -1;
	if (c->wr_count[i] != n || c->wr_tag[i] != (uint32_t)(it & 0xffff))
		return efx_fail_at(c->err,
				   "iteration %llu from rank %d: %llu writes tagged %u landed, want %llu tagged %u",
				   (unsigned long long)it, sender, (unsigned long long)c->wr_count[i], c->wr_tag[i],
				   (unsigned long long)n, (uint32_t)(it & 0xffff));
	c->wr_count[i] = 0;
	return 0;
}
