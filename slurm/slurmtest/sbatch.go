package slurmtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Parse is what sbatch made of its options: sbatch's own parser, run with
// a configuration whose controller listens nowhere, stopped once it has
// said what it read (-v prints the options it defined) and before it would
// submit anything.
type Parse struct {
	Defined      map[string]string // option → value, as sbatch -v lists them; nil when it stopped before
	Ambiguous    []string          // the long options an ambiguous prefix could be
	NeedsValue   string            // the long option that sbatch said requires an argument
	Unrecognized bool
	Stderr       string
}

// SbatchParse runs sbatch with args and returns what it made of them. A
// script in args is read as sbatch reads it, #SBATCH lines and all. With
// -short it skips tb: it needs Slurm's sbatch, and some options (--uid,
// --gid) only root may give.
func SbatchParse(tb testing.TB, args ...string) Parse {
	tb.Helper()
	if testing.Short() {
		tb.Skip("slurmtest: -short: runs Slurm's sbatch, as root (make test runs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sbatch", args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+stubConf(tb))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("slurmtest: sbatch: %v (make deps installs slurm-client)", err)
	}
	p := Parse{}
	var all strings.Builder
	sc := bufio.NewScanner(stderr)
	defining := false
	for sc.Scan() {
		line := sc.Text()
		all.WriteString(line + "\n")
		if m := ambiguous.FindStringSubmatch(line); m != nil {
			for _, o := range regexp.MustCompile(`'--([a-z0-9-]+)'`).FindAllStringSubmatch(m[1], -1) {
				p.Ambiguous = append(p.Ambiguous, o[1])
			}
		} else if m := needsValue.FindStringSubmatch(line); m != nil {
			p.NeedsValue = m[1]
		} else if strings.Contains(line, "unrecognized option") {
			p.Unrecognized = true
		} else if strings.HasSuffix(line, "sbatch: defined options") {
			defining, p.Defined = true, map[string]string{}
		} else if strings.Contains(line, "end of defined options") {
			break
		} else if m := defined.FindStringSubmatch(line); defining && m != nil {
			p.Defined[m[1]] = m[2]
		}
	}
	cmd.Process.Kill() // past its options, sbatch would wait for the controller
	cmd.Wait()
	p.Stderr = all.String()
	return p
}

var (
	ambiguous  = regexp.MustCompile(`option '--[^']*' is ambiguous; possibilities: (.*)$`)
	needsValue = regexp.MustCompile(`option '--([a-z0-9-]+)' requires an argument`)
	defined    = regexp.MustCompile(`^sbatch: ([a-z0-9-]+)\s+: (.*)$`)
)

// confs holds the slurm.conf that stubConf wrote for each test.
var confs sync.Map

// stubConf writes a slurm.conf whose controller is a closed port on the
// loopback, once per test.
func stubConf(tb testing.TB) string {
	tb.Helper()
	if path, ok := confs.Load(tb); ok {
		return path.(string)
	}
	path := filepath.Join(tb.TempDir(), "slurm.conf")
	confs.Store(tb, path)
	tb.Cleanup(func() { confs.Delete(tb) })
	conf := fmt.Sprintf("ClusterName=probe\nSlurmctldHost=localhost\nSlurmctldPort=%d\n"+
		"NodeName=localhost CPUs=1 State=UNKNOWN\nPartitionName=debug Nodes=localhost Default=YES\n", closedPort)
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// closedPort is a port nothing listens on: TCP port 1, tcpmux, long unused.
const closedPort = 1
