/*
 * fabric.c: one libfabric RDM endpoint per rank, its completion queue,
 * address vector and memory registrations. They live for the whole step;
 * message sizes change inside them, nothing is rebuilt per size.
 */
#include <stdlib.h>
#include <string.h>

#include "efx.h"

#define MR_BITS (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT)

static struct fi_info *make_hints(const char *prov)
{
	struct fi_info *h = fi_allocinfo();
	if (!h)
		return NULL;
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_MSG | FI_RMA;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->domain_attr->mr_mode = MR_BITS;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->fabric_attr->prov_name = strdup(prov);
	return h;
}

/* pick_domain keeps the entry for the asked domain (NIC): utility providers
 * such as ofi_rxm list every domain whatever the hint says. */
static int pick_domain(efx_ctx *c, const char *prov)
{
	const char *nic = c->cfg.nic;
	if (!nic || !*nic)
		return 0;
	char seen[512] = "";
	for (struct fi_info *i = c->fi; i; i = i->next) {
		if (strcmp(i->domain_attr->name, nic) == 0) {
			struct fi_info *one = fi_dupinfo(i);
			fi_freeinfo(c->fi);
			c->fi = one;
			return one ? 0 : efx_fail(c->err, "fi_dupinfo: out of memory");
		}
		if (!strstr(seen, i->domain_attr->name))
			snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s", seen[0] ? ", " : "",
				 i->domain_attr->name);
	}
	return efx_fail(c->err, "provider \"%s\" offers no domain \"%s\" here; it offers: %s", prov, nic, seen);
}

static int get_info(efx_ctx *c, const char *prov, bool quiet)
{
	struct fi_info *h = make_hints(prov);
	if (!h)
		return efx_fail(c->err, "fi_allocinfo: out of memory");
	int ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, h, &c->fi);
	fi_freeinfo(h);
	if (ret && !quiet)
		return efx_fail(c->err,
				"provider \"%s\" is not usable here for FI_EP_RDM with FI_MSG|FI_RMA (fi_getinfo: %s); "
				"`fi_info -l` lists the providers",
				prov, fi_strerror(-ret));
	if (ret)
		return -1;
	return pick_domain(c, prov);
}

/* resolve_provider turns "auto" into efa, then shm on one node, else tcp. */
static int resolve_provider(efx_ctx *c)
{
	const char *p = c->cfg.provider;
	if (strcmp(p, "auto") != 0)
		return get_info(c, p, false);
	if (get_info(c, "efa", true) == 0)
		return 0;
	return get_info(c, c->info->local_size == c->info->world ? "shm" : "tcp", false);
}

static void mr_mode_string(uint64_t mode, char *out, size_t n)
{
	static const struct { uint64_t bit; const char *name; } bits[] = {
		{FI_MR_LOCAL, "FI_MR_LOCAL"},       {FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR"},
		{FI_MR_ALLOCATED, "FI_MR_ALLOCATED"}, {FI_MR_PROV_KEY, "FI_MR_PROV_KEY"},
		{FI_MR_ENDPOINT, "FI_MR_ENDPOINT"}, {FI_MR_RAW, "FI_MR_RAW"},
		{FI_MR_HMEM, "FI_MR_HMEM"},
	};
	out[0] = 0;
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (mode & bits[i].bit)
			snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? "|" : "", bits[i].name);
}

static int open_endpoint(efx_ctx *c)
{
	struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE};
	struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
	EFX_FI(c->err, fi_fabric(c->fi->fabric_attr, &c->fabric, NULL));
	EFX_FI(c->err, fi_domain(c->fabric, c->fi, &c->domain, NULL));
	EFX_FI(c->err, fi_cq_open(c->domain, &cq_attr, &c->cq, NULL));
	EFX_FI(c->err, fi_av_open(c->domain, &av_attr, &c->av, NULL));
	EFX_FI(c->err, fi_endpoint(c->domain, c->fi, &c->ep, NULL));
	EFX_FI(c->err, fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV));
	EFX_FI(c->err, fi_ep_bind(c->ep, &c->av->fid, 0));
	EFX_FI(c->err, fi_enable(c->ep));
	return 0;
}

/* reg allocates len bytes, page aligned, and registers them as the provider asks. */
static int reg(efx_ctx *c, efx_buf *b, size_t len)
{
	uint64_t mode = c->fi->domain_attr->mr_mode;
	b->len = len;
	if (posix_memalign((void **)&b->ptr, 4096, len ? len : 1))
		return efx_fail(c->err, "allocate %zu bytes: out of memory", len);
	memset(b->ptr, 0, len);
	uint64_t access = FI_SEND | FI_RECV | FI_WRITE | FI_READ | FI_REMOTE_WRITE | FI_REMOTE_READ;
	EFX_FI(c->err, fi_mr_reg(c->domain, b->ptr, len, access, 0, c->mr_key_next++, 0, &b->mr, NULL));
	if (mode & FI_MR_ENDPOINT) {
		EFX_FI(c->err, fi_mr_bind(b->mr, &c->ep->fid, 0));
		EFX_FI(c->err, fi_mr_enable(b->mr));
	}
	b->desc = fi_mr_desc(b->mr);
	return 0;
}

/* exchange gives every rank every other rank's address and receive region. */
static int exchange(efx_ctx *c)
{
	int world = c->info->world;
	char *names = calloc((size_t)world, EFX_ADDRLEN);
	char mine[EFX_ADDRLEN] = {0};
	size_t len = sizeof mine;
	c->addrs = calloc((size_t)world, sizeof *c->addrs);
	c->remote = calloc((size_t)world, sizeof *c->remote);
	if (!names || !c->addrs || !c->remote)
		return efx_fail(c->err, "exchange addresses: out of memory");
	EFX_FI(c->err, fi_getname(&c->ep->fid, mine, &len));
	if (efx_allgather(c, mine, names, EFX_ADDRLEN))
		return -1;
	for (int r = 0; r < world; r++) /* one at a time: some providers' names vary in length */
		if (fi_av_insert(c->av, names + (size_t)r * EFX_ADDRLEN, 1, &c->addrs[r], 0, NULL) != 1)
			return efx_fail(c->err, "fi_av_insert of rank %d's address failed", r);
	free(names);

	efx_remote me = {
		.addr = (c->fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)c->dst.ptr : 0,
		.key = fi_mr_key(c->dst.mr),
	};
	return efx_allgather(c, &me, c->remote, sizeof me);
}

static void fingerprint(efx_ctx *c)
{
	efx_info *in = c->info;
	struct fi_info *fi = c->fi;
	snprintf(in->provider, sizeof in->provider, "%s", fi->fabric_attr->prov_name);
	snprintf(in->fabric, sizeof in->fabric, "%s", fi->fabric_attr->name);
	snprintf(in->domain, sizeof in->domain, "%s", fi->domain_attr->name);
	mr_mode_string(fi->domain_attr->mr_mode, in->mr_mode, sizeof in->mr_mode);
	if (fi->nic && fi->nic->link_attr)
		in->link_bps = fi->nic->link_attr->speed;
	uint32_t v = fi_version();
	snprintf(in->libfabric, sizeof in->libfabric, "%u.%u", FI_MAJOR(v), FI_MINOR(v));
}

int efx_fabric_open(efx_ctx *c)
{
	if (resolve_provider(c) || open_endpoint(c))
		return -1;
	if (c->fi->domain_attr->cq_data_size < 4)
		return efx_fail(c->err, "provider %s carries no remote CQ data; RDMA write completion needs it",
				c->fi->fabric_attr->prov_name);
	fingerprint(c);
	c->mr_key_next = 1;
	c->nslots = 1;
	uint32_t nops = 2 * c->cfg.window + EFX_ACKS;
	c->ops = calloc(nops, sizeof *c->ops);
	c->free_ops = calloc(nops, sizeof *c->free_ops);
	if (!c->ops || !c->free_ops)
		return efx_fail(c->err, "allocate %u operation contexts: out of memory", nops);
	for (uint32_t i = 0; i < 2 * c->cfg.window; i++)
		c->free_ops[c->nfree++] = i;
	if (reg(c, &c->src, c->cfg.max_size) || reg(c, &c->dst, 2 * efx_stride(c->cfg.max_size)) ||
	    reg(c, &c->ctl, EFX_ACKS * sizeof(uint64_t)) || exchange(c))
		return -1;
	efx_fill(c->src.ptr, c->src.len, c->info->rank);
	return strcmp(c->benchmark, "write") == 0 && c->info->rank == 0 ? efx_post_acks(c) : 0;
}

static void close_fid(struct fid *f)
{
	if (f)
		fi_close(f);
}

static void unreg(efx_buf *b)
{
	if (b->mr)
		fi_close(&b->mr->fid);
	free(b->ptr);
}

void efx_fabric_close(efx_ctx *c)
{
	close_fid(c->ep ? &c->ep->fid : NULL);
	unreg(&c->src);
	unreg(&c->dst);
	unreg(&c->ctl);
	close_fid(c->av ? &c->av->fid : NULL);
	close_fid(c->cq ? &c->cq->fid : NULL);
	close_fid(c->domain ? &c->domain->fid : NULL);
	close_fid(c->fabric ? &c->fabric->fid : NULL);
	if (c->fi)
		fi_freeinfo(c->fi);
	free(c->addrs);
	free(c->remote);
	free(c->ops);
	free(c->free_ops);
}
