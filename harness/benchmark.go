package harness

// benchmarks are the benchmarks efaxx-runner knows, by the name its
// --benchmark flag takes. A sweep's benchmark key names one or more of them;
// a new benchmark is a new entry here.
var benchmarks = []string{
	"sendrecv", // libfabric SEND/RECV ping-pong between rank pairs
	"write",    // libfabric RDMA WRITE with remote CQ data, rank 0 to its peers
	"all2all",  // every rank RDMA-writes its buffer to every other rank at once
}
