// Command efaxx-containerbench measures what running in a container costs,
// on the testbed (two hosts, four NICs each shaped to 1 Gbit/s) with pyxis
// and enroot, side by side in one run. make bench runs it.
//
//   - write: rank 0 on h1 writes 64 MiB to h2 over 4 rails (split), with
//     efaxx-runner in the image (pyxis, enroot, srun --mpi=pmix) and on the
//     hosts, in alternated rounds; the ratio of the medians (goal: 0.97 or
//     more). Every number comes from a run that verified its data.
//   - step start: the wall time of a step that runs /bin/true on both
//     nodes, on the hosts, in the job's container reused by name (what
//     efaxx's steps do), and in a fresh container per step (pyxis unpacks
//     the image each time), alternated; what each adds to a bare step
//     (goal: a reused container adds under 0.5 s).
//
// All steps run in one allocation (salloc --no-shell). The image must hold
// the very efaxx-runner measured on the hosts (make image builds it from
// bin/efaxx-runner). Needs root: it starts the testbed, holding the Slurm
// tests' lock while it is up.
//
// Usage: go run ./cmd/efaxx-containerbench [-runner bin/efaxx-runner]
// [-image bin/efaxx.sqsh] [-rounds 5]
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"efaxx/results/record"
	"efaxx/slurm/slurmtest"
)

const size = 64 << 20

func main() {
	runner := flag.String("runner", "bin/efaxx-runner", "efaxx-runner measured on the hosts; the image must hold the same")
	image := flag.String("image", "bin/efaxx.sqsh", "the image (make image)")
	rounds := flag.Int("rounds", 5, "rounds of each measurement; medians are shown")
	flag.Parse()
	if err := run(*runner, *image, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-containerbench:", err)
		os.Exit(1)
	}
}

// bench is one allocation on the testbed.
type bench struct {
	env           []string // with the testbed's SLURM_CONF
	job           string   // the allocation
	runner, image string   // absolute
	out           string   // where the ranks write, mounted into the container
}

func run(runner, image string, rounds int) error {
	var err error
	if runner, err = filepath.Abs(runner); err != nil {
		return err
	}
	if image, err = filepath.Abs(image); err != nil {
		return err
	}
	if err := sameRunner(runner, image); err != nil {
		return err
	}
	c, down, err := slurmtest.Up(slurmtest.Options{Hosts: 2, Pyxis: true, Rate: "1gbit"},
		func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) })
	if err != nil {
		return err
	}
	defer func() {
		if err := down(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}()
	out, err := os.MkdirTemp("", "efaxx-containerbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	b := &bench{env: append(os.Environ(), "SLURM_CONF="+c.Conf), runner: runner, image: image, out: out}
	if b.job, err = b.allocate(); err != nil {
		return err
	}
	defer b.slurm("scancel", b.job)
	fi, _ := os.Stat(image)
	fmt.Printf("container bench on the testbed: 2 hosts, 4 NICs each shaped to 1 Gbit/s; image %s (%d MiB); %d rounds; load average %s\n",
		image, fi.Size()>>20, rounds, loadavg())
	if err := b.write(rounds); err != nil {
		return err
	}
	if err := b.starts(rounds); err != nil {
		return err
	}
	fmt.Printf("load average at the end: %s\n", loadavg())
	return nil
}

// sameRunner checks that the image holds runner, by the hash make image
// recorded of what went into it.
func sameRunner(runner, image string) error {
	inputs, err := os.ReadFile(image + ".inputs")
	if err != nil {
		return fmt.Errorf("%w (build the image with make image)", err)
	}
	f, err := os.Open(runner)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if !strings.Contains(string(inputs), "efaxx-runner "+hex.EncodeToString(h.Sum(nil))) {
		return fmt.Errorf("%s does not hold %s (rebuild it: make image)", image, runner)
	}
	return nil
}

// allocate takes both nodes for the steps to come and returns the job id.
func (b *bench) allocate() (string, error) {
	out, err := b.slurm("salloc", "-N2", "--no-shell", "--job-name=containerbench", "--time=30")
	m := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(out)
	if err != nil || m == nil {
		return "", fmt.Errorf("salloc: %v\n%s", err, out)
	}
	return m[1], nil
}

// slurm runs a Slurm command against the testbed and returns its output.
func (b *bench) slurm(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = b.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// srun runs one step of the allocation on both nodes, one task each, in
// the image when container is set ("reuse": the job's container, by name;
// "fresh": a new one), and returns its wall time.
func (b *bench) srun(container string, command ...string) (time.Duration, string, error) {
	args := []string{"--jobid=" + b.job, "-N2", "-n2", "--mpi=pmix", "--kill-on-bad-exit=1"}
	switch container {
	case "reuse", "fresh":
		args = append(args, "--container-image="+b.image, "--container-mounts="+b.out+":"+b.out, "--no-container-mount-home")
		if container == "reuse" {
			args = append(args, "--container-name=bench")
		}
	case "":
	default:
		return 0, "", fmt.Errorf("container %q", container)
	}
	start := time.Now()
	out, err := b.slurm("srun", append(args, command...)...)
	return time.Since(start), out, err
}

// write measures the write at 64 MiB over 4 rails, in the image and on
// the hosts, in alternated rounds.
func (b *bench) write(rounds int) error {
	var inside, bare []float64
	for i := range rounds {
		for _, mode := range alternate(i, "reuse", "") {
			runner := b.runner
			if mode != "" {
				runner = "/usr/local/bin/efaxx-runner"
			}
			dir := filepath.Join(b.out, fmt.Sprintf("write-%d-%s", i, map[string]string{"": "bare", "reuse": "container"}[mode]))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			_, out, err := b.srun(mode, runner, "--benchmark", "write", "--provider", "tcp", "--nic", "nic[0-3]",
				"--rails", "4", "--strategy", "split", "--link-gbps", "1", "--pin", "none", "--sizes", strconv.Itoa(size),
				"--iterations", "8", "--warmup", "1", "--timeout", "60s", "--out", dir)
			if err != nil {
				return fmt.Errorf("write step (%s): %v\n%s", describe(mode), err, out)
			}
			gbps, err := rank0(filepath.Join(dir, record.RankFile(0)), mode != "")
			if err != nil {
				return err
			}
			if mode == "" {
				bare = append(bare, gbps)
			} else {
				inside = append(inside, gbps)
			}
		}
	}
	ratio := median(inside) / median(bare)
	fmt.Printf("write 64 MiB, h1 to h2, 4 rails (split), Gbps of payload sent: in the container %s, on the hosts %s; "+
		"ratio of medians %.3f (goal >= 0.97: %s)\n", spread(inside), spread(bare), ratio, met(ratio >= 0.97))
	return nil
}

// rank0 returns the rate rank 0's one sample of a verified, ok run
// reached, and checks the fingerprint says where it ran.
func rank0(path string, inContainer bool) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var gbps float64
	ok := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		v, err := record.Decode(bytes.Clone(sc.Bytes()))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		switch r := v.(type) {
		case *record.Rank:
			if r.InContainer != inContainer {
				return 0, fmt.Errorf("%s: rank 0 says in_container %v, want %v", path, r.InContainer, inContainer)
			}
		case *record.Sample:
			gbps = 8 * float64(r.BytesSent) * float64(r.Iterations) / float64(r.ElapsedNs)
		case *record.End:
			ok = r.Status == record.StatusOK
			if !ok {
				return 0, fmt.Errorf("%s: rank 0 %s: %s", path, r.Status, r.Error)
			}
		}
	}
	if !ok || gbps == 0 {
		return 0, fmt.Errorf("%s: no sample and ok end record", path)
	}
	return gbps, nil
}

// starts times steps of /bin/true: on the hosts, in the reused container
// and in a fresh one, in alternated rounds.
func (b *bench) starts(rounds int) error {
	times := map[string][]float64{}
	modes := []string{"", "reuse", "fresh"}
	for i := range rounds {
		order := append([]string(nil), modes...)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, mode := range order {
			d, out, err := b.srun(mode, "/bin/true")
			if err != nil {
				return fmt.Errorf("step (%s): %v\n%s", describe(mode), err, out)
			}
			times[mode] = append(times[mode], d.Seconds())
		}
	}
	bare := median(times[""])
	reuse, fresh := median(times["reuse"])-bare, median(times["fresh"])-bare
	fmt.Printf("step start, /bin/true on 2 nodes, seconds: on the hosts %s; in the job's container, reused %s (adds %.2f s); "+
		"in a fresh container per step %s (adds %.2f s); goal: reused adds < 0.5 s: %s\n",
		spread(times[""]), spread(times["reuse"]), reuse, spread(times["fresh"]), fresh, met(reuse < 0.5))
	return nil
}

// alternate returns a and b, in the other order every second round.
func alternate(round int, a, b string) []string {
	if round%2 == 1 {
		return []string{b, a}
	}
	return []string{a, b}
}

func describe(mode string) string {
	switch mode {
	case "reuse":
		return "in the job's container"
	case "fresh":
		return "in a fresh container"
	}
	return "on the hosts"
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread writes the median of v and its range: "3.91 (3.80-3.95)".
func spread(v []float64) string {
	return fmt.Sprintf("%.3f (%.3f-%.3f)", median(v), slices.Min(v), slices.Max(v))
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}
