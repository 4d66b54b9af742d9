/*
 * mpiinit.c: given by LD_PRELOAD to a program launched by mpirun, it
 * makes the program's process an MPI process and nothing else: MPI_Init
 * before main, MPI_Finalize at exit, as efaxx-runner's rank does around
 * its measurements (Open MPI then runs its own threads and components in
 * the process). bench/ref/launch.sh, docs/performance.md.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void init(void)
{
	int rank = 0;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS || MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
		fprintf(stderr, "mpiinit: MPI_Init failed\n");
	if (rank == 0)
		usleep(500000); /* MPI_Init ends together on both ranks: let rank 1, the server, listen first */
}

__attribute__((destructor)) static void finalize(void)
{
	int up = 0, down = 0;
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down)
		MPI_Finalize();
}
