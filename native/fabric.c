/*
 * fabric.c: the rails of a rank. Each rail is one libfabric RDM endpoint
 * with its own fabric, domain, completion queue, address vector and memory
 * registrations, on one NIC (libfabric domain). Rails on different NICs
 * need their own domain anyway, so one code path serves both cases; where
 * there are fewer NICs than rails (tcp on loopback, shm) several rails share
 * a NIC. Everything lives for the whole step; nothing is rebuilt per size.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "efx.h"

#define MR_BITS (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT)

/* make_hints asks for what every benchmark needs, and for GPU memory
 * (FI_HMEM, FI_MR_HMEM) when hmem is set. */
static struct fi_info *make_hints(const char *prov, bool hmem)
{
	struct fi_info *h = fi_allocinfo();
	if (!h)
		return NULL;
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_MSG | FI_RMA | (hmem ? FI_HMEM : 0);
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->domain_attr->mr_mode = MR_BITS | (hmem ? FI_MR_HMEM : 0);
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->fabric_attr->prov_name = strdup(prov);
	if (!h->fabric_attr->prov_name) { /* NULL would mean any provider */
		fi_freeinfo(h);
		return NULL;
	}
	return h;
}

static int get_info(const char *prov, bool hmem, struct fi_info **out, char *err, bool quiet)
{
	struct fi_info *h = make_hints(prov, hmem);
	if (!h)
		return efx_fail(err, "fi_getinfo hints for \"%s\": out of memory", prov);
	int ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, h, out);
	fi_freeinfo(h);
	if (ret && !quiet && hmem)
		return efx_fail(err,
				"memory device needs a provider that registers GPU memory (FI_HMEM); %s does not here "
				"(fi_getinfo with FI_HMEM: %s)",
				prov, fi_strerror(-ret));
	if (ret && !quiet)
		return efx_fail(err,
				"provider \"%s\" is not usable here for FI_EP_RDM with FI_MSG|FI_RMA (fi_getinfo: %s); "
				"`fi_info -l` lists the providers",
				prov, fi_strerror(-ret));
	return ret ? -1 : 0;
}

/* resolve_provider turns "auto" into efa, then shm on one node, else tcp. */
static int resolve_provider(efx_ctx *c, struct fi_info **out)
{
	const char *p = c->cfg.provider;
	bool hmem = c->cfg.memory == EFX_MEMORY_DEVICE;
	if (strcmp(p, "auto") != 0)
		return get_info(p, hmem, out, c->err, false);
	if (get_info("efa", hmem, out, c->err, true) == 0)
		return 0;
	return get_info(c->info->local_size == c->info->world ? "shm" : "tcp", hmem, out, c->err, false);
}

/* matches reports whether domain is named by one of the comma-separated
 * names or fnmatch patterns of list. */
static bool matches(const char *list, const char *domain)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (fnmatch(tok, domain, 0) == 0)
			return true;
	return false;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct fi_info *const *)a)->domain_attr->name, (*(struct fi_info *const *)b)->domain_attr->name);
}

/* pick_nics lists the first entry of each domain that nics names, sorted by
 * name (utility providers such as ofi_rxm list every domain whatever the
 * hints say); it returns how many, or -1 with a message naming what exists. */
static int pick_nics(efx_ctx *c, struct fi_info *all, struct fi_info **nic, int max)
{
	const char *want = c->cfg.nics;
	int n = 0;
	char seen[512] = "";
	for (struct fi_info *i = all; i; i = i->next) {
		const char *d = i->domain_attr->name;
		bool dup = false;
		for (int j = 0; j < n; j++)
			dup |= strcmp(nic[j]->domain_attr->name, d) == 0;
		if (!dup && (!want || !*want || matches(want, d)) && n < max)
			nic[n++] = i;
		if (!strstr(seen, d))
			snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s", seen[0] ? ", " : "", d);
	}
	if (n == 0)
		return efx_fail(c->err, "provider \"%s\" offers no domain matching \"%s\" here; it offers: %s",
				all->fabric_attr->prov_name, want, seen);
	if (want && *want) /* with no choice made, keep the provider's preference order */
		qsort(nic, (size_t)n, sizeof *nic, by_name);
	return n;
}

/* open_cq opens rail r's CQ. A rank that shares its core with other ranks
 * asks for a wait object (FI_WAIT_FD) to block on when it has nothing to
 * do (ops.c, idle); a provider without one (shm) gets none, and the rank
 * yields instead. A rank with a core of its own never blocks, and a wait
 * object would only cost it a signal per completion. */
static int open_cq(efx_ctx *c, efx_rail *r)
{
	struct fi_cq_attr attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD};
	r->wait_fd = -1;
	if (c->yield && fi_cq_open(r->domain, &attr, &r->cq, NULL) == 0) {
		if (fi_control(&r->cq->fid, FI_GETWAIT, &r->wait_fd) == 0)
			return 0;
		r->wait_fd = -1;
		fi_close(&r->cq->fid);
	}
	attr.wait_obj = FI_WAIT_NONE;
	EFX_FI(c->err, fi_cq_open(r->domain, &attr, &r->cq, NULL));
	return 0;
}

static int open_endpoint(efx_ctx *c, efx_rail *r)
{
	struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
	EFX_FI(c->err, fi_fabric(r->fi->fabric_attr, &r->fabric, NULL));
	EFX_FI(c->err, fi_domain(r->fabric, r->fi, &r->domain, NULL));
	if (open_cq(c, r))
		return -1;
	r->inject_size = r->fi->tx_attr->inject_size;
	EFX_FI(c->err, fi_av_open(r->domain, &av_attr, &r->av, NULL));
	EFX_FI(c->err, fi_endpoint(r->domain, r->fi, &r->ep, NULL));
	EFX_FI(c->err, fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV));
	EFX_FI(c->err, fi_ep_bind(r->ep, &r->av->fid, 0));
	EFX_FI(c->err, fi_enable(r->ep));
	if (r->fi->domain_attr->cq_data_size < 4)
		return efx_fail(c->err, "provider %s carries no remote CQ data; RDMA write completion needs it",
				r->fi->fabric_attr->prov_name);
	return 0;
}

#define ACCESS (FI_SEND | FI_RECV | FI_WRITE | FI_READ | FI_REMOTE_WRITE | FI_REMOTE_READ)

/* no_cuda is the error of a libfabric that cannot register GPU memory. */
static int no_cuda(efx_ctx *c, const efx_rail *r, int ret)
{
	return efx_fail(c->err,
			"memory device: %.32s of libfabric %.16s (%.160s) cannot register GPU memory (fi_mr_regattr "
			"with FI_HMEM_CUDA: %.40s): that libfabric was built without CUDA; build one --with-cuda "
			"(kernels/build-libfabric.sh) and put its lib/ first on LD_LIBRARY_PATH",
			r->fi->fabric_attr->prov_name, c->info->libfabric, c->info->libfabric_lib, fi_strerror(-ret));
}

/* reg_gpu registers a buffer of GPU memory through FI_HMEM. */
static int reg_gpu(efx_ctx *c, efx_rail *r, efx_buf *buf, uint64_t key, struct fid_mr **mr)
{
	struct iovec iov = {.iov_base = buf->ptr, .iov_len = buf->len};
	struct fi_mr_attr a = {.mr_iov = &iov, .iov_count = 1, .access = ACCESS, .requested_key = key,
			       .iface = FI_HMEM_CUDA, .device.cuda = c->cuda.ordinal(c->gpu)};
	/* FI_HMEM_DEVICE_ONLY: the memory is cudaMalloc's, which lets shm move
	 * it by CUDA IPC; without the flag shm 1.17 copies it through its host
	 * bounce buffers (about 8 Gbps at 256 MiB on an H200). */
	int ret = fi_mr_regattr(r->domain, &a, FI_HMEM_DEVICE_ONLY, mr);
	if (ret == -FI_ENOSYS)
		return no_cuda(c, r, ret);
	if (ret)
		return efx_fail(c->err, "%s:%d: fi_mr_regattr of %zu bytes of GPU memory (FI_HMEM_CUDA, device %d) on %s: %s",
				__FILE__, __LINE__, buf->len, c->cuda.ordinal(c->gpu), r->fi->fabric_attr->prov_name,
				fi_strerror(-ret));
	return 0;
}

/* hmem_usable fails, before any GPU is touched, where the rails' libfabric
 * cannot register GPU memory at all: a libfabric built without CUDA
 * answers -FI_ENOSYS for the CUDA interface whatever the address. */
static int hmem_usable(efx_ctx *c, efx_rail *r)
{
	static uint8_t probe[64];
	struct iovec iov = {.iov_base = probe, .iov_len = sizeof probe};
	struct fi_mr_attr a = {.mr_iov = &iov, .iov_count = 1, .access = ACCESS, .requested_key = 99,
			       .iface = FI_HMEM_CUDA};
	struct fid_mr *mr = NULL;
	int ret = fi_mr_regattr(r->domain, &a, 0, &mr);
	if (mr)
		fi_close(&mr->fid);
	if (ret == -FI_ENOSYS)
		return no_cuda(c, r, ret);
	return 0; /* another answer (the probe is host memory) leaves the verdict to the real registration */
}

/* reg registers every buffer with rail r as its domain asks. */
static int reg(efx_ctx *c, efx_rail *r)
{
	for (int b = 0; b < NBUFS; b++) {
		efx_buf *buf = &c->buf[b];
		if (buf->device) {
			if (reg_gpu(c, r, buf, (uint64_t)b + 1, &r->mr[b]))
				return -1;
		} else {
			EFX_FI(c->err, fi_mr_reg(r->domain, buf->ptr, buf->len, ACCESS, 0, (uint64_t)b + 1, 0, &r->mr[b], NULL));
		}
		if (r->fi->domain_attr->mr_mode & FI_MR_ENDPOINT) {
			EFX_FI(c->err, fi_mr_bind(r->mr[b], &r->ep->fid, 0));
			EFX_FI(c->err, fi_mr_enable(r->mr[b]));
		}
		r->desc[b] = fi_mr_desc(r->mr[b]);
	}
	return 0;
}

/* alloc_buf gives buffers of 2 MiB and more transparent huge pages: the
 * shm provider copies large messages with CMA, which pins the pages of
 * both processes on every call, and with 4 KiB pages that pinning, not the
 * copy, sets the pace (a third of memcpy on 4 KiB pages, par on 2 MiB ones).
 * Where THP is off the madvise fails and the buffer keeps small pages; the
 * fingerprint says which it got. */
static int alloc_buf(efx_ctx *c, efx_buf *b, size_t len, bool gpu)
{
	b->len = len ? len : 1;
	if (gpu) { /* memory = "device": the plugin's cudaMalloc, filled by the plugin too */
		b->device = true;
		return c->cuda.dev_alloc(c->gpu, b->len, (void **)&b->ptr, c->err);
	}
	bool huge = b->len >= EFX_HUGE_PAGE;
	if (posix_memalign((void **)&b->ptr, huge ? EFX_HUGE_PAGE : 4096, b->len))
		return efx_fail(c->err, "allocate %zu bytes: out of memory", b->len);
	if (huge)
		madvise(b->ptr, b->len - b->len % EFX_HUGE_PAGE, MADV_HUGEPAGE);
	memset(b->ptr, 0, b->len); /* touch every page now, on this rank's core */
	return 0;
}

/* vma_huge_kb reads the AnonHugePages of the mapping holding p from
 * /proc/self/smaps, and that mapping's start so a caller counts it once. */
static uint64_t vma_huge_kb(const void *p, unsigned long *start)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long lo, hi, kb = 0;
	bool in = false;
	*start = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			if (in)
				break;
			in = lo <= (uintptr_t)p && (uintptr_t)p < hi;
			if (in)
				*start = lo;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			break;
		}
	}
	if (f)
		fclose(f);
	return kb;
}

/* host_pages says how much of the data buffers huge pages back. */
static void host_pages(efx_ctx *c)
{
	if (c->buf[BUF_SRC].device) {
		snprintf(c->info->host_pages, sizeof c->info->host_pages, "none: the data buffers are GPU memory");
		return;
	}
	unsigned long s0, s1;
	uint64_t total = c->buf[BUF_SRC].len + c->buf[BUF_DST].len;
	uint64_t huge = vma_huge_kb(c->buf[BUF_SRC].ptr, &s0) << 10;
	uint64_t dst = vma_huge_kb(c->buf[BUF_DST].ptr, &s1) << 10;
	if (s1 != s0)
		huge += dst;
	if (huge > total)
		huge = total;
	snprintf(c->info->host_pages, sizeof c->info->host_pages, "huge pages back %llu of %llu MiB",
		 (unsigned long long)(huge >> 20), (unsigned long long)(total >> 20));
}

/* One rank's entry in a rail's allgather. */
typedef struct efx_card {
	char name[EFX_ADDRLEN];
	efx_remote dst;
	int32_t gpu; /* the ordinal of the GPU its buffers are on; -1: host memory */
} efx_card;

/* exchange gives rail r every rank's address and dst region: one allgather
 * per rail, and every address inserted once. */
static int exchange(efx_ctx *c, efx_rail *r)
{
	int world = c->info->world;
	efx_card mine = {0}, *cards = calloc((size_t)world, sizeof *cards);
	size_t len = sizeof mine.name;
	r->addrs = calloc((size_t)world, sizeof *r->addrs);
	r->remote = calloc((size_t)world, sizeof *r->remote);
	if (!cards || !r->addrs || !r->remote) {
		free(cards);
		return efx_fail(c->err, "exchange addresses: out of memory");
	}
	int rc = fi_getname(&r->ep->fid, mine.name, &len);
	mine.dst.addr = (r->fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)c->buf[BUF_DST].ptr : 0;
	mine.dst.key = fi_mr_key(r->mr[BUF_DST]);
	mine.gpu = c->gpu && c->buf[BUF_DST].device ? c->cuda.ordinal(c->gpu) : -1;
	if (rc)
		rc = efx_fail_fi(c->err, "fi_getname", rc, " on rail %u", r->index);
	else
		rc = efx_allgather(c, &mine, cards, sizeof mine);
	for (int k = 0; rc == 0 && k < world; k++) { /* one at a time: some providers' names vary in length */
		if (fi_av_insert(r->av, cards[k].name, 1, &r->addrs[k], 0, NULL) != 1)
			rc = efx_fail_at(c->err, "fi_av_insert of rank %d's address on rail %u failed", k, r->index);
		r->remote[k] = cards[k].dst;
	}
	/* the references copy to the first peer's GPU (efx_references): one
	 * this process can reach, every rank on this node */
	c->peer_gpu = -1;
	if (rc == 0 && world > 1 && c->info->local_size == world)
		c->peer_gpu = cards[c->info->rank == 0 ? 1 : 0].gpu;
	free(cards);
	return rc;
}

static int make_pool(efx_ctx *c, efx_rail *r)
{
	uint32_t n = 2 * c->cfg.window;
	r->ops = calloc(n, sizeof *r->ops);
	if (!r->ops)
		return efx_fail(c->err, "allocate %u operation contexts: out of memory", n);
	for (uint32_t i = 0; i < n; i++) {
		r->ops[i].rail = r;
		r->ops[i].next = r->free;
		r->free = &r->ops[i];
	}
	return 0;
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

static void fingerprint(efx_ctx *c)
{
	efx_info *in = c->info;
	struct fi_info *fi = c->rail[0].fi;
	snprintf(in->provider, sizeof in->provider, "%s", fi->fabric_attr->prov_name);
	mr_mode_string(fi->domain_attr->mr_mode, in->mr_mode, sizeof in->mr_mode);
	uint32_t v = fi_version();
	snprintf(in->libfabric, sizeof in->libfabric, "%u.%u", FI_MAJOR(v), FI_MINOR(v));
	static const char *where[] = {"host memory", "host memory pinned and mapped by CUDA",
				      "GPU memory (cudaMalloc) through FI_HMEM_CUDA"};
	snprintf(in->memory, sizeof in->memory, "%s, registered by %s of libfabric %s", where[c->cfg.memory],
		 fi->fabric_attr->prov_name, in->libfabric);
	if (c->gpu && c->info->rank == 0 && c->cfg.memory == EFX_MEMORY_DEVICE) {
		int own = c->cuda.ordinal(c->gpu), to = c->peer_gpu >= 0 ? c->peer_gpu : own;
		size_t at = strlen(in->memory);
		/* two processes on one GPU without MPS take turns on it: at small
		 * sizes that switching, not the path, sets each iteration's time
		 * (docs/performance.md, "Two GPUs, completions ...") */
		const char *whose = c->peer_gpu < 0     ? " (rank 1 elsewhere)"
				    : c->peer_gpu == own ? ", which rank 1 shares (without MPS, time-sliced between the two processes)"
							 : " (rank 1's)";
		snprintf(in->memory + at, sizeof in->memory - at, "; the cudaMemcpy reference copies GPU %d to GPU %d%s", own,
			 to, whose);
	}
	in->nrails = c->nrails;
	for (uint32_t j = 0; j < c->nrails; j++) {
		struct fi_info *f = c->rail[j].fi;
		efx_rail_info *ri = &in->rail[j];
		snprintf(ri->domain, sizeof ri->domain, "%s", f->domain_attr->name);
		snprintf(ri->fabric, sizeof ri->fabric, "%s", f->fabric_attr->name);
		ri->link_bps = f->nic && f->nic->link_attr ? f->nic->link_attr->speed : 0;
	}
}

/* pin binds the calling thread, the one that runs every timed loop, to core. */
static int pin(efx_ctx *c)
{
	c->info->core = -1;
	if (c->cfg.core < 0)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(c->cfg.core, &set);
	if (sched_setaffinity(0, sizeof set, &set))
		return efx_fail_at(c->err, "sched_setaffinity (pin to core %d): %s", c->cfg.core, strerror(errno));
	c->info->core = c->cfg.core;
	return 0;
}

/* library_path names the libfabric this process loaded: which build
 * registered the memory, where a machine has more than one. */
static void library_path(efx_info *in)
{
	uint32_t v = fi_version();
	snprintf(in->libfabric, sizeof in->libfabric, "%u.%u", FI_MAJOR(v), FI_MINOR(v));
	Dl_info d;
	if (dladdr((void *)fi_getinfo, &d) && d.dli_fname)
		snprintf(in->libfabric_lib, sizeof in->libfabric_lib, "%s", d.dli_fname);
}

/* open_rails opens rail j on the j-th NIC picked, wrapping around when
 * there are fewer NICs than rails. */
static int open_rails(efx_ctx *c)
{
	struct fi_info *all = NULL, *nic[EFX_MAX_RAILS];
	if (resolve_provider(c, &all))
		return -1;
	int n = pick_nics(c, all, nic, EFX_MAX_RAILS);
	for (uint32_t j = 0; n > 0 && j < c->nrails; j++) {
		efx_rail *r = &c->rail[j];
		r->index = j;
		r->fi = fi_dupinfo(nic[j % (uint32_t)n]);
		if (!r->fi) {
			n = efx_fail(c->err, "fi_dupinfo: out of memory");
			break;
		}
		if (open_endpoint(c, r) || make_pool(c, r)) {
			n = -1;
			break;
		}
	}
	fi_freeinfo(all);
	return n < 0 ? -1 : 0;
}

/* efx_fabric_open opens the rails of a network benchmark with the buffers
 * and bookkeeping need asks for, makes the buffers the memory the point
 * asks for, writes the sender pattern into each source slot and posts
 * the ack receives. Every data buffer is at least EFX_SLOT_BYTES (so on
 * huge pages): a small size measured alone uses the same kind of memory
 * as in a sweep that goes up to large ones. */
int efx_fabric_open(efx_ctx *c, efx_net need)
{
	int world = c->info->world;
	c->nrails = c->cfg.rails;
	uint64_t stride = efx_stride(c->cfg.max_size), two = 2 * stride;
	c->src_slots = need.src_slots;
	c->regions = need.every_sender ? (uint32_t)world - 1 : 1;
	/* A region holds 2 of the largest size, and with one sender at least
	 * EFX_SLOT_BYTES, so that a size has the same slots whatever the
	 * largest; a region per sender (all2all) stays at 2 of the largest,
	 * or thousands of ranks would need gigabytes each. */
	c->region_len = c->regions == 1 && two < EFX_SLOT_BYTES ? EFX_SLOT_BYTES : two;
	/* and past the two, room for two of the largest size's edge records,
	 * so that a write that lands its stamps apart (write.c) does so at
	 * the largest size too, as it would in a sweep of larger ones */
	efx_plan largest;
	efx_plan_for(c, &largest, c->cfg.max_size);
	c->region_len += c->regions == 1 ? 2 * efx_edge_rec(&largest) : 0;
	c->acked = calloc((size_t)world, sizeof *c->acked);
	c->landed = calloc((size_t)world, sizeof *c->landed);
	c->wr_count = calloc((size_t)c->regions * EFX_MAX_SLOTS, sizeof *c->wr_count);
	c->wr_tag = calloc((size_t)c->regions * EFX_MAX_SLOTS, sizeof *c->wr_tag);
	if (!c->acked || !c->landed || !c->wr_count || !c->wr_tag)
		return efx_fail(c->err, "allocate per-peer state: out of memory");
	/* the source: the proxy's fixed slots of the largest size, else room
	 * for the source slots of any size, as many as fit (efx_set_src) */
	uint64_t src = c->src_slots ? c->src_slots * stride : two < EFX_SLOT_BYTES ? EFX_SLOT_BYTES : two;
	/* The rails first: with memory device, whether their libfabric can
	 * register GPU memory at all is known before a GPU is opened. */
	bool gpu = c->cfg.memory == EFX_MEMORY_DEVICE;
	library_path(c->info);
	if (pin(c) || open_rails(c))
		return -1;
	for (uint32_t j = 0; gpu && j < c->nrails; j++)
		if (hmem_usable(c, &c->rail[j]))
			return -1;
	if ((gpu && efx_cuda_attach(c)) || alloc_buf(c, &c->buf[BUF_SRC], src, gpu) ||
	    alloc_buf(c, &c->buf[BUF_DST], c->regions * c->region_len, gpu) ||
	    alloc_buf(c, &c->buf[BUF_CTL], EFX_ACKS * sizeof(efx_ack), false))
		return -1;
	for (uint32_t j = 0; j < c->nrails; j++)
		if (reg(c, &c->rail[j]) || exchange(c, &c->rail[j]))
			return -1;
	fingerprint(c);
	host_pages(c);
	if (efx_memory_open(c) || efx_references_open(c))
		return -1;
	c->src_n = c->src_filled = c->src_slots ? c->src_slots : 1;
	c->src_stride = stride; /* each source slot holds the pattern from its own start */
	c->src_len = c->cfg.max_size;
	for (uint32_t s = 0; s < c->src_n; s++)
		if (efx_mem_fill(c, c->buf[BUF_SRC].ptr + s * stride, c->cfg.max_size, c->info->rank))
			return -1;
	return need.acks ? efx_post_acks(c) : 0;
}

static void close_fid(struct fid *f)
{
	if (f)
		fi_close(f);
}

static void close_rail(efx_rail *r)
{
	close_fid(r->ep ? &r->ep->fid : NULL);
	for (int b = 0; b < NBUFS; b++)
		close_fid(r->mr[b] ? &r->mr[b]->fid : NULL);
	close_fid(r->av ? &r->av->fid : NULL);
	close_fid(r->cq ? &r->cq->fid : NULL);
	close_fid(r->domain ? &r->domain->fid : NULL);
	close_fid(r->fabric ? &r->fabric->fid : NULL);
	if (r->fi)
		fi_freeinfo(r->fi);
	free(r->addrs);
	free(r->remote);
	free(r->ops);
}

void efx_fabric_close(efx_ctx *c)
{
	for (uint32_t j = 0; j < c->nrails; j++)
		close_rail(&c->rail[j]);
	for (int b = 0; b < NBUFS; b++)
		if (c->buf[b].device)
			c->cuda.dev_free(c->gpu, c->buf[b].ptr);
		else
			free(c->buf[b].ptr);
	free(c->acked);
	free(c->landed);
	free(c->wr_count);
	free(c->wr_tag);
}
