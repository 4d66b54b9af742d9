/*
 * mpi_boot.c: MPI does the bootstrap only: ranks, node-local ranks,
 * address exchange and barriers. Data moves through libfabric.
 *
 * Every collective is non-blocking and polled against a deadline, so a
 * dead peer fails this rank with a message instead of hanging the job.
 * MPI returns its errors rather than ending the process (MPI_ERRORS_RETURN
 * on MPI_COMM_WORLD, which the node-local communicator inherits), and every
 * call is checked, so a rank whose MPI fails still writes its end record
 * with the reason.
 */
#include <mpi.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "efx.h"

/* mpi_fail fails for an MPI call that returned rc: "file:line: call: MPI's words". */
static int mpi_fail(char *err, const char *file, int line, const char *call, int rc)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "MPI error %d", rc);
	return efx_fail(err, "%s:%d: %s: %s", file, line, call, msg);
}

/* EFX_MPI runs an MPI call and fails with its name and MPI's error string. */
#define EFX_MPI(err, call)                                                             \
	do {                                                                           \
		int efx_rc_ = (call);                                                  \
		if (efx_rc_ != MPI_SUCCESS)                                            \
			return mpi_fail((err), __FILE__, __LINE__, #call, efx_rc_); \
	} while (0)

/* wait_request polls req and, meanwhile, the fabric: with manual progress a
 * peer's last operations may still need this rank's CQ to move. */
static int wait_request(efx_ctx *c, MPI_Request *req, const char *what)
{
	int64_t deadline = efx_now() + c->cfg.timeout_ns;
	for (;;) {
		int done = 0;
		int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) {
			char call[64];
			snprintf(call, sizeof call, "MPI_Test (%s)", what);
			return mpi_fail(c->err, __FILE__, __LINE__, call, rc);
		}
		if (done)
			return 0;
		if (efx_now() > deadline)
			return efx_fail(c->err, "%s: no answer from every rank within %.1f s (a peer died or hangs)",
					what, c->cfg.timeout_ns / 1e9);
		int n = c->nrails ? efx_progress(c) : 0;
		if (n < 0)
			return -1;
		if (n == 0)
			sched_yield(); /* ranks waiting here must not starve a pair that is measuring */
	}
}

/* efx_mpi_init fills info's ranks; info->rank stays -1 until this rank knows it. */
int efx_mpi_init(efx_info *info, char *err)
{
	int provided, len;
	MPI_Comm local;
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	info->rank = -1;
	EFX_MPI(err, MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided));
	EFX_MPI(err, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	EFX_MPI(err, MPI_Comm_rank(MPI_COMM_WORLD, &info->rank));
	EFX_MPI(err, MPI_Comm_size(MPI_COMM_WORLD, &info->world));
	EFX_MPI(err, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info->rank, MPI_INFO_NULL, &local));
	EFX_MPI(err, MPI_Comm_rank(local, &info->local_rank));
	EFX_MPI(err, MPI_Comm_size(local, &info->local_size));
	EFX_MPI(err, MPI_Comm_free(&local));
	EFX_MPI(err, MPI_Get_library_version(version, &len));
	version[strcspn(version, ",\n")] = 0; /* "Open MPI v4.1.4, package: ..." -> first clause */
	snprintf(info->mpi, sizeof info->mpi, "%s", version);
	if (gethostname(info->host, sizeof info->host) != 0)
		snprintf(info->host, sizeof info->host, "unknown");
	return 0;
}

int efx_mpi_finalize(char *err)
{
	EFX_MPI(err, MPI_Finalize());
	return 0;
}

/* efx_mpi_abort ends every rank of the job; it returns only when MPI_Abort failed. */
int efx_mpi_abort(int code, char *err)
{
	EFX_MPI(err, MPI_Abort(MPI_COMM_WORLD, code));
	return 0;
}

int efx_allgather(efx_ctx *c, const void *send, void *recv, int bytes)
{
	MPI_Request req;
	EFX_MPI(c->err, MPI_Iallgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD, &req));
	return wait_request(c, &req, "allgather");
}

int efx_barrier(efx_ctx *c)
{
	MPI_Request req;
	EFX_MPI(c->err, MPI_Ibarrier(MPI_COMM_WORLD, &req));
	return wait_request(c, &req, "barrier");
}

/* efx_pair_sync returns once both this rank and peer have called it. */
int efx_pair_sync(efx_ctx *c, int peer)
{
	char out = 0, in = 0;
	MPI_Request req[2];
	EFX_MPI(c->err, MPI_Irecv(&in, 1, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &req[0]));
	EFX_MPI(c->err, MPI_Isend(&out, 1, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &req[1]));
	if (wait_request(c, &req[0], "pair sync with peer"))
		return -1;
	return wait_request(c, &req[1], "pair sync with peer");
}

/* efx_agree gives the ranks of a timed loop rank 0's n values in v: the
 * pair's other rank (peer >= 0), or every rank (peer < 0). */
int efx_agree(efx_ctx *c, int peer, uint64_t *v, int n)
{
	MPI_Request req;
	if (peer < 0)
		EFX_MPI(c->err, MPI_Ibcast(v, n, MPI_UINT64_T, 0, MPI_COMM_WORLD, &req));
	else if (c->info->rank == 0)
		EFX_MPI(c->err, MPI_Isend(v, n, MPI_UINT64_T, peer, 8, MPI_COMM_WORLD, &req));
	else
		EFX_MPI(c->err, MPI_Irecv(v, n, MPI_UINT64_T, 0, 8, MPI_COMM_WORLD, &req));
	return wait_request(c, &req, "the iterations of this size from rank 0");
}
