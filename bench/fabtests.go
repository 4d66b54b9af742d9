package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"efaxx/results/external"
	"efaxx/results/record"
)

// fabtests runs libfabric's own benchmarks, built by bench/fabtests/build
// (pinned release, outside the repository), as a server and a client on
// this host, and reads their -m lines through efaxx's fabtests parser,
// the one that stores fabtests runs.
type fabtests struct {
	bin string // the build's bin/
}

// buildFabtests builds fabtests into dest unless it is there already.
func buildFabtests(dest string) (*fabtests, error) {
	cmd := exec.Command(filepath.Join("bench", "fabtests", "build"), dest)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench/fabtests/build %s: %w", dest, err)
	}
	return &fabtests{bin: filepath.Join(dest, "bin")}, nil
}

// pair is what one fabtests run reported: each side's sample of its one
// size, as the fabtests parser reads them.
type pair struct {
	server, client record.Sample
}

// run runs prog (fi_rma_bw, fi_rdm_pingpong, ...) over provider at size
// with the extra options args, and returns both sides' samples. The
// server starts first; the client once the server listens on the
// out-of-band port (-E: addresses exchanged over a socket, the same way
// for tcp and shm), each side on its own free ports. Each side is pinned
// to the core of the efaxx rank in its role (efaxx-runner pins rank N to
// core N): the client, which writes, sends or starts the ping-pong as rank
// 0 does, to core 0; the server, the target and receiver as rank 1 is, to
// core 1. Both sides bind 127.0.0.1 (-s), as efaxx's ranks do with --nic
// lo: a client left to itself binds the host's first interface address,
// so its server would answer an address other than loopback's. The cores
// are not alike here: fi_rma_bw's client on core 1 ran
// 8% faster than on core 0 (tcp 8 MiB, 4 rounds with the cores near).
func (f *fabtests) run(prog, provider string, size uint64, args ...string) (pair, error) {
	ports, err := freePorts(3)
	if err != nil {
		return pair{}, err
	}
	oob := "-E=" + strconv.Itoa(ports[0])
	common := append([]string{"-p", provider, oob, "-m", "-S", itoa(size)}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var srvOut, srvErr, cliOut, cliErr bytes.Buffer
	srv := exec.CommandContext(ctx, filepath.Join(f.bin, prog),
		append([]string{"-B", strconv.Itoa(ports[1]), "-s", "127.0.0.1", "--pin-core", "1"}, common...)...)
	srv.Stdout, srv.Stderr = &srvOut, &srvErr
	if err := srv.Start(); err != nil {
		return pair{}, err
	}
	waited := false
	defer func() { // on an early return, stop the server and reap it
		if !waited {
			cancel()
			srv.Wait()
		}
	}()
	if err := listening(ports[0], 30*time.Second); err != nil {
		return pair{}, fmt.Errorf("%s server: %w: %s", prog, err, srvErr.String())
	}
	cli := exec.CommandContext(ctx, filepath.Join(f.bin, prog),
		append(append([]string{"-B", strconv.Itoa(ports[2]), "-s", "127.0.0.1", "--pin-core", "0"}, common...), "127.0.0.1")...)
	cli.Stdout, cli.Stderr = &cliOut, &cliErr
	if err := cli.Run(); err != nil {
		return pair{}, fmt.Errorf("%s client %s: %w: %s", prog, strings.Join(common, " "), err, cliErr.String())
	}
	waited = true
	if err := srv.Wait(); err != nil {
		return pair{}, fmt.Errorf("%s server: %w: %s", prog, err, srvErr.String())
	}
	res, err := external.Parse("fabtests", external.Input{Ranks: 2, Sizes: []uint64{size}, Files: []external.File{
		{Name: prog + " server", Rank: 0, Data: srvOut.Bytes()},
		{Name: prog + " client", Rank: 1, Data: cliOut.Bytes()},
	}})
	if err != nil {
		return pair{}, err
	}
	var p pair
	for _, s := range res.Samples {
		if s.Rank == 0 {
			p.server = s
		} else {
			p.client = s
		}
	}
	if p.server.Iterations == 0 || p.client.Iterations == 0 {
		return pair{}, fmt.Errorf("%s: a side printed no result", prog)
	}
	return p, nil
}

// freePorts returns n TCP ports that were free on 127.0.0.1 a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// listening waits until a socket listens on port (state 0A in
// /proc/net/tcp): connecting to find out would take the server's one
// accept.
func listening(port int, limit time.Duration) error {
	want := fmt.Sprintf(":%04X ", port)
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) > 3 && strings.HasSuffix(f[1]+" ", want) && f[3] == "0A" {
				return nil
			}
		}
	}
	return fmt.Errorf("nothing listens on port %d after %v", port, limit)
}
