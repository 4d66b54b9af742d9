// hmem_probe.cu: can this machine's libfabric register GPU memory
// (FI_HMEM) and move it? Not part of efaxx; kept so the FI_HMEM findings
// of docs/performance.md can be re-checked on a new machine.
//
//   nvcc -O2 -o hmem_probe hmem_probe.cu -l:libfabric.so.1
//   ./hmem_probe [PROVIDER]    (default shm)
//
// It asks fi_getinfo for FI_HMEM with FI_MSG | FI_RMA, registers a
// cudaMalloc buffer through fi_mr_regattr (iface FI_HMEM_CUDA), and writes
// 1 MiB from one endpoint's GPU buffer into another's, in one process,
// checking every byte with cudaMemcpy.
#include <cuda_runtime.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#define FI(x)                                                                                      \
	do {                                                                                       \
		int r_ = (int)(x);                                                                 \
		if (r_ < 0) {                                                                      \
			printf("FAIL %s:%d %s: %s (%d)\n", __FILE__, __LINE__, #x, fi_strerror(-r_), r_); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)
#define CK(x)                                                                                     \
	do {                                                                                      \
		cudaError_t ce_ = (x);                                                              \
		if (ce_ != cudaSuccess) {                                                         \
			printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(ce_)); \
			exit(1);                                                                  \
		}                                                                                 \
	} while (0)

struct end {
	fid_ep *ep;
	fid_cq *cq;
	fid_mr *mr;
	void *buf;
	char name[256];
	size_t namelen;
	fi_addr_t peer;
};

int main(int argc, char **argv)
{
	const char *prov = argc > 1 ? argv[1] : "shm";
	const size_t len = 1 << 20;
	printf("libfabric runtime %u.%u\n", FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
	fi_info *hints = fi_allocinfo(), *info;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_RMA | FI_HMEM;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_HMEM |
				      FI_MR_ENDPOINT;
	hints->fabric_attr->prov_name = strdup(prov);
	int rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	if (rc) {
		printf("FAIL fi_getinfo(%s, FI_HMEM): %s\n", prov, fi_strerror(-rc));
		return 1;
	}
	printf("provider %s %u.%u, fabric %s, domain %s, caps has FI_HMEM: %s, mr_mode %s\n", info->fabric_attr->prov_name,
	       FI_MAJOR(info->fabric_attr->prov_version), FI_MINOR(info->fabric_attr->prov_version), info->fabric_attr->name,
	       info->domain_attr->name, info->caps & FI_HMEM ? "yes" : "no",
	       fi_tostr(&info->domain_attr->mr_mode, FI_TYPE_MR_MODE));
	fid_fabric *fabric;
	fid_domain *domain;
	fid_av *av;
	FI(fi_fabric(info->fabric_attr, &fabric, NULL));
	FI(fi_domain(fabric, info, &domain, NULL));
	fi_av_attr ava = {};
	ava.type = FI_AV_TABLE;
	FI(fi_av_open(domain, &ava, &av, NULL));
	end e[2];
	for (int i = 0; i < 2; i++) {
		fi_cq_attr cqa = {};
		cqa.format = FI_CQ_FORMAT_DATA;
		FI(fi_endpoint(domain, info, &e[i].ep, NULL));
		FI(fi_cq_open(domain, &cqa, &e[i].cq, NULL));
		FI(fi_ep_bind(e[i].ep, &e[i].cq->fid, FI_TRANSMIT | FI_RECV));
		FI(fi_ep_bind(e[i].ep, &av->fid, 0));
		FI(fi_enable(e[i].ep));
		e[i].namelen = sizeof e[i].name;
		FI(fi_getname(&e[i].ep->fid, e[i].name, &e[i].namelen));
		CK(cudaMalloc(&e[i].buf, len));
		fi_mr_attr mra = {};
		iovec iov = {e[i].buf, len};
		mra.mr_iov = &iov;
		mra.iov_count = 1;
		mra.access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
		mra.iface = FI_HMEM_CUDA;
		mra.device.cuda = 0;
		mra.requested_key = i;
		FI(fi_mr_regattr(domain, &mra, 0, &e[i].mr));
		if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
			FI(fi_mr_bind(e[i].mr, &e[i].ep->fid, 0));
			FI(fi_mr_enable(e[i].mr));
		}
		printf("endpoint %d: cudaMalloc %zu bytes registered through fi_mr_regattr(FI_HMEM_CUDA), key %llu\n", i, len,
		       (unsigned long long)fi_mr_key(e[i].mr));
	}
	for (int i = 0; i < 2; i++)
		if (fi_av_insert(av, e[1 - i].name, 1, &e[i].peer, 0, NULL) != 1) {
			printf("FAIL fi_av_insert\n");
			return 1;
		}
	std::vector<unsigned char> h(len), g(len);
	for (size_t i = 0; i < len; i++)
		h[i] = (unsigned char)(i * 131 + 7);
	CK(cudaMemcpy(e[0].buf, h.data(), len, cudaMemcpyHostToDevice));
	CK(cudaMemset(e[1].buf, 0, len));
	uint64_t raddr = info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)e[1].buf : 0;
	int posted;
	do
		posted = (int)fi_write(e[0].ep, e[0].buf, len, fi_mr_desc(e[0].mr), e[0].peer, raddr, fi_mr_key(e[1].mr), NULL);
	while (posted == -FI_EAGAIN && (fi_cq_read(e[0].cq, NULL, 0), fi_cq_read(e[1].cq, NULL, 0), 1));
	FI(posted);
	fi_cq_data_entry ce;
	for (long spin = 0;; spin++) {
		ssize_t n = fi_cq_read(e[0].cq, &ce, 1);
		fi_cq_read(e[1].cq, NULL, 0);
		if (n == 1)
			break;
		if (n != -FI_EAGAIN) {
			fi_cq_err_entry ee = {};
			fi_cq_readerr(e[0].cq, &ee, 0);
			printf("FAIL write completion: %s (prov %s)\n", fi_strerror(ee.err),
			       fi_cq_strerror(e[0].cq, ee.prov_errno, ee.err_data, NULL, 0));
			return 1;
		}
		if (spin > 200000000L) {
			printf("FAIL write never completed\n");
			return 1;
		}
	}
	CK(cudaMemcpy(g.data(), e[1].buf, len, cudaMemcpyDeviceToHost));
	size_t bad = 0;
	for (size_t i = 0; i < len; i++)
		bad += g[i] != h[i];
	printf("%s: fi_write of %zu bytes GPU buffer to GPU buffer: %zu bytes wrong\n", bad ? "FAIL" : "ok", len, bad);
	return bad != 0;
}
