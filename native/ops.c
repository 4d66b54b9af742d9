/*
 * ops.c: posting operations and reaping their completions.
 *
 * Progress is manual on tcp;ofi_rxm and shm: nothing moves unless this
 * rank reads its CQ, so every wait loop calls efx_progress, and every wait
 * gives up when nothing has completed for cfg.timeout_ns.
 */
#include <string.h>

#include "efx.h"

int efx_stalled(efx_ctx *c, const char *what)
{
	int64_t idle = efx_now() - c->last_progress;
	if (idle <= c->cfg.timeout_ns)
		return 0;
	return efx_fail(c->err, "waiting for %s: nothing completed for %.1f s (timeout; is the peer alive?)",
			what, idle / 1e9);
}

static int cq_error(efx_ctx *c)
{
	struct fi_cq_err_entry e = {0};
	char buf[256];
	if (fi_cq_readerr(c->cq, &e, 0) < 0)
		return efx_fail(c->err, "completion error, and fi_cq_readerr failed");
	const char *prov = fi_cq_strerror(c->cq, e.prov_errno, e.err_data, buf, sizeof buf);
	return efx_fail(c->err, "completion error: %s (provider: %s)", fi_strerror(e.err), prov ? prov : "?");
}

static void on_remote_write(efx_ctx *c, uint64_t data)
{
	uint32_t tag = (uint32_t)data;
	uint32_t slot = tag % c->nslots;
	c->wr_count[slot]++;
	c->wr_tag[slot] = tag;
}

static int on_op(efx_ctx *c, efx_op *op)
{
	switch (op->kind) {
	case OP_TX:
		c->tx_done++;
		break;
	case OP_RX:
		c->rx_done++;
		break;
	case OP_ACK: {
		uint64_t v = ((uint64_t *)c->ctl.ptr)[op->index];
		if (v > c->acked)
			c->acked = v;
		c->ack_repost |= 1u << op->index; /* reposted after the CQ batch, never pooled */
		return 0;
	}
	}
	c->free_ops[c->nfree++] = (uint32_t)(op - c->ops);
	return 0;
}

/* repost_acks puts reaped ack receives back; one the provider refuses now waits for the next call. */
static int repost_acks(efx_ctx *c)
{
	for (uint32_t i = 0; c->ack_repost && i < EFX_ACKS; i++) {
		if (!(c->ack_repost & (1u << i)))
			continue;
		efx_op *op = &c->ops[2 * c->cfg.window + i];
		uint64_t *slot = (uint64_t *)c->ctl.ptr + i;
		ssize_t r = fi_recv(c->ep, slot, sizeof *slot, c->ctl.desc, FI_ADDR_UNSPEC, &op->fi);
		if (r == -FI_EAGAIN)
			continue;
		if (r)
			return efx_fail(c->err, "fi_recv (ack): %s", fi_strerror((int)-r));
		c->ack_repost &= ~(1u << i);
	}
	return 0;
}

/* efx_progress reaps completions; it returns how many, or -1 on an error. */
int efx_progress(efx_ctx *c)
{
	struct fi_cq_data_entry e[16];
	ssize_t n = fi_cq_read(c->cq, e, 16);
	if (n == -FI_EAGAIN)
		return 0;
	if (n == -FI_EAVAIL)
		return cq_error(c);
	if (n < 0)
		return efx_fail(c->err, "fi_cq_read: %s", fi_strerror((int)-n));
	for (ssize_t i = 0; i < n; i++) {
		if (e[i].flags & FI_REMOTE_WRITE)
			on_remote_write(c, e[i].data);
		else if (on_op(c, e[i].op_context))
			return -1;
	}
	c->last_progress = efx_now();
	return repost_acks(c) ? -1 : (int)n;
}

/* take_op returns an idle pooled context, reaping completions until one frees. */
static efx_op *take_op(efx_ctx *c, enum efx_op_kind kind)
{
	while (c->nfree == 0)
		if (efx_progress(c) < 0 || efx_stalled(c, "a free operation slot"))
			return NULL;
	efx_op *op = &c->ops[c->free_ops[--c->nfree]];
	op->kind = kind;
	return op;
}

/* retry runs a post again while the provider says -FI_EAGAIN, making progress in between. */
#define RETRY(c, what, call)                                                                  \
	for (;;) {                                                                            \
		ssize_t r_ = (call);                                                          \
		if (r_ == 0)                                                                  \
			break;                                                                \
		if (r_ != -FI_EAGAIN)                                                         \
			return efx_fail((c)->err, "%s: %s", what, fi_strerror((int)-r_));     \
		if (efx_progress(c) < 0 || efx_stalled(c, what))                              \
			return -1;                                                            \
	}

int efx_wait_tx(efx_ctx *c, uint64_t inflight, const char *what)
{
	while (c->tx_posted - c->tx_done > inflight)
		if (efx_progress(c) < 0 || efx_stalled(c, what))
			return -1;
	return 0;
}

int efx_post_send(efx_ctx *c, const void *buf, size_t len, int peer)
{
	if (efx_wait_tx(c, c->cfg.window - 1, "send completions"))
		return -1;
	efx_op *op = take_op(c, OP_TX);
	if (!op)
		return -1;
	RETRY(c, "fi_send", fi_send(c->ep, buf, len, c->src.desc, c->addrs[peer], &op->fi));
	c->tx_posted++;
	return 0;
}

int efx_post_recv(efx_ctx *c, void *buf, size_t len)
{
	efx_op *op = take_op(c, OP_RX);
	if (!op)
		return -1;
	RETRY(c, "fi_recv", fi_recv(c->ep, buf, len, c->dst.desc, FI_ADDR_UNSPEC, &op->fi));
	return 0;
}

int efx_post_write(efx_ctx *c, size_t off, size_t len, int peer, uint64_t slot_off, uint32_t tag)
{
	if (efx_wait_tx(c, c->cfg.window - 1, "write completions"))
		return -1;
	efx_op *op = take_op(c, OP_TX);
	if (!op)
		return -1;
	uint64_t raddr = c->remote[peer].addr + slot_off + off;
	RETRY(c, "fi_writedata",
	      fi_writedata(c->ep, c->src.ptr + off, len, c->src.desc, tag, c->addrs[peer], raddr,
			   c->remote[peer].key, &op->fi));
	c->tx_posted++;
	return 0;
}

/* efx_post_acks posts the ack receives a write initiator keeps open. */
int efx_post_acks(efx_ctx *c)
{
	for (uint32_t i = 0; i < EFX_ACKS; i++) {
		efx_op *op = &c->ops[2 * c->cfg.window + i];
		op->kind = OP_ACK;
		op->index = i;
		c->ack_repost |= 1u << i;
	}
	while (c->ack_repost)
		if (repost_acks(c) || efx_progress(c) < 0 || efx_stalled(c, "posting ack receives"))
			return -1;
	return 0;
}

/* efx_send_ack tells peer that value iterations have landed and verified. */
int efx_send_ack(efx_ctx *c, int peer, uint64_t value)
{
	RETRY(c, "fi_inject (ack)", fi_inject(c->ep, &value, sizeof value, c->addrs[peer]));
	return 0;
}
