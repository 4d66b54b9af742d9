package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"efaxx/slurm"
)

// Finding is one result of Doctor: a check and how it went.
type Finding struct {
	Name   string // what was checked: "slurm", "pyxis", ...
	Status string // CheckOK, CheckWarn or CheckFail
	Detail string
}

// Finding statuses.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "FAIL"
)

// DoctorOptions says what Doctor checks beyond the cluster.
type DoctorOptions struct {
	Sweep      *Sweep // its MPI plugin and image are checked; nil for none
	RunnerPath string // efaxx-runner, run with --version; "" to skip
	Workdir    string
	Version    string // efaxx's own, "VERSION (COMMIT)": the image's runner should be the same
}

// Doctor checks what a submission needs: Slurm's partitions and idle
// nodes, its MPI plugins, pyxis, the image, libfabric's providers and NICs
// on this machine, the runner and the workdir. Every command goes through
// client's Commander.
func Doctor(ctx context.Context, client *slurm.Client, o DoctorOptions) []Finding {
	res := Resources{MPI: defaultMPI}
	if o.Sweep != nil {
		res = o.Sweep.Resources
	}
	var checks []Finding
	_, err := client.Partitions(ctx)
	cluster := !errors.Is(err, slurm.ErrNoCluster)
	if !cluster {
		// Local runs need no cluster: say so, and ask Slurm nothing more.
		f := Finding{"slurm", CheckWarn, slurm.NoClusterHere(err) +
			": efaxx run runs sweeps on this machine with mpirun; submit, status and sync need a cluster"}
		if o.Sweep != nil && o.Sweep.HasSlurmTables() {
			f.Status, f.Detail = CheckFail, "the sweep has a [slurm] or [container] table, and "+f.Detail
		}
		checks = append(checks, f)
	} else {
		pyxis := checkPyxis(ctx, client, res.Container != nil)
		checks = append(checks, checkPartitions(ctx, client, res.Partition), checkMPI(ctx, client, res.MPI, mpiWhose(o.Sweep, res.MPI)), pyxis)
		if pyxis.Status == CheckOK || res.Container != nil {
			checks = append(checks, checkEnroot(ctx, client.Commander))
		}
		if res.Container != nil {
			checks = append(checks, checkImage(ctx, res.Container.Image, o.Version))
			if len(res.Container.Mounts) > 0 {
				checks = append(checks, checkMounts(res.Container.Mounts))
			}
		}
	}
	checks = append(checks, checkFabric(ctx, client.Commander)...)
	if o.RunnerPath != "" {
		checks = append(checks, checkRunner(ctx, client.Commander, o.RunnerPath))
	}
	return append(checks, checkWorkdir(o.Workdir, cluster, res.Container != nil))
}

// checkWorkdir refuses a workdir that submit refuses (a path that sbatch
// or, with a container, pyxis and enroot cannot carry), a warning only
// where there is no cluster to submit to, then says whether the compute
// nodes are likely to see it.
func checkWorkdir(workdir string, cluster, container bool) Finding {
	abs, err := filepath.Abs(workdir)
	if err == nil {
		err = slurm.CheckDir("workdir", abs)
	}
	if err == nil && container {
		err = CheckContainerPath("workdir", abs)
	}
	if err != nil {
		f := Finding{"workdir", CheckFail, err.Error() + "; submit refuses it (--workdir or EFAXX_WORKDIR names another)"}
		if !cluster {
			f.Status = CheckWarn
		}
		return f
	}
	if w := CheckShared(workdir); w != "" {
		return Finding{"workdir", CheckWarn, w}
	}
	return Finding{"workdir", CheckOK, workdir + " is on a network filesystem"}
}

func checkPartitions(ctx context.Context, c *slurm.Client, want string) Finding {
	parts, err := c.Partitions(ctx)
	if err != nil {
		return Finding{"slurm", CheckFail, err.Error()}
	}
	var list []string
	found := want == ""
	for _, p := range parts {
		state := "up"
		if !p.Up {
			state = "down"
		}
		list = append(list, fmt.Sprintf("%s (%s, %d of %d nodes idle, limit %s)", p.Name, state, p.Idle, p.Total, p.TimeLimit))
		found = found || strings.TrimSuffix(p.Name, "*") == want
	}
	if !found {
		return Finding{"slurm", CheckFail, fmt.Sprintf("no partition %q; partitions: %s", want, strings.Join(list, "; "))}
	}
	return Finding{"slurm", CheckOK, "partitions: " + strings.Join(list, "; ")}
}

// mpiWhose says whose srun --mpi plugin mpi is: efaxx's default, without
// a sweep or where the sweep sets no [slurm] mpi, or the sweep's.
func mpiWhose(s *Sweep, mpi string) string {
	switch {
	case s == nil:
		return fmt.Sprintf("efaxx's default is --mpi=%s (a sweep's [slurm] mpi picks another)", mpi)
	case s.mpiDefault:
		return fmt.Sprintf("the sweep sets no [slurm] mpi, so efaxx's default --mpi=%s", mpi)
	}
	return fmt.Sprintf("the sweep asks for --mpi=%s", mpi)
}

// checkMPI checks that srun takes plugin want; whose (mpiWhose) says
// whose it is.
func checkMPI(ctx context.Context, c *slurm.Client, want, whose string) Finding {
	plugins, err := c.MPIPlugins(ctx)
	if err != nil {
		return Finding{"mpi", CheckFail, err.Error()}
	}
	detail := "srun --mpi takes: " + strings.Join(plugins, ", ")
	if !slices.Contains(plugins, want) {
		return Finding{"mpi", CheckFail, whose + "; " + detail}
	}
	return Finding{"mpi", CheckOK, detail}
}

func checkPyxis(ctx context.Context, c *slurm.Client, needed bool) Finding {
	ok, err := c.HasPyxis(ctx)
	switch {
	case err != nil:
		return Finding{"pyxis", CheckFail, err.Error()}
	case ok:
		return Finding{"pyxis", CheckOK, "srun takes --container-image"}
	case needed:
		return Finding{"pyxis", CheckFail, "the sweep has a [container] but srun takes no --container-image: pyxis is not installed"}
	}
	return Finding{"pyxis", CheckWarn, "srun takes no --container-image (pyxis is not installed); sweeps without [container] run"}
}

// checkEnroot reports the enroot on this machine, which is usually the
// compute nodes' too; pyxis runs theirs.
func checkEnroot(ctx context.Context, r slurm.Commander) Finding {
	out, err := r.Run(ctx, "enroot", "version")
	if err != nil {
		return Finding{"enroot", CheckWarn, fmt.Sprintf("enroot version: %v; the compute nodes need enroot, "+
			"which pyxis runs (enroot/runtime installs it; docs/slurm.md)", err)}
	}
	return Finding{"enroot", CheckOK, "enroot " + strings.TrimSpace(string(out)) + " on this machine"}
}

// checkImage reports whether the sweep's image is readable here and
// holds an efaxx-runner of this efaxx's version.
func checkImage(ctx context.Context, image, version string) Finding {
	if !IsImagePath(image) {
		return Finding{"image", CheckOK, image + ": a registry image, which enroot pulls when the job starts"}
	}
	digest, err := ImageDigest(image)
	if err != nil {
		return Finding{"image", CheckFail, err.Error()}
	}
	fi, _ := os.Stat(image)
	what := fmt.Sprintf("%s: %d MiB, %s", image, fi.Size()>>20, digest)
	v, ok, err := ImageRunnerVersion(ctx, image)
	if err == nil && ok {
		// Beside the runner, a step runs these in the image: an image
		// without one runs no point.
		for _, f := range []struct{ file, why string }{
			{"/bin/sh", "which pyxis starts the container with"},
			{slurm.ContainerEnv, "which starts " + ImageRunner + " with the sweep's variables"},
		} {
			if _, has, err := ImageFile(ctx, image, f.file); err == nil && !has {
				return Finding{"image", CheckFail, fmt.Sprintf("%s; holds no %s, %s: its points would fail "+
					"(docs/slurm.md says how to build the image)", what, f.file, f.why)}
			}
		}
	}
	switch {
	case err != nil:
		return Finding{"image", CheckWarn, what + "; " + err.Error()}
	case !ok:
		return Finding{"image", CheckFail, fmt.Sprintf("%s; holds no %s: its points would fail (docs/slurm.md says how to build the image)", what, ImageRunner)}
	case version != "" && v != version:
		return Finding{"image", CheckWarn, fmt.Sprintf("%s; holds efaxx-runner %s, this efaxx is %s: rebuild the image to match", what, v, version)}
	}
	return Finding{"image", CheckOK, fmt.Sprintf("%s; holds efaxx-runner %s (this machine's view; the compute nodes must see it too)", what, v)}
}

// checkMounts looks for the source of each [container] mount on this
// machine: pyxis fails a step on a node that lacks one ("source path does
// not exist"). The compute nodes are not this machine, so a source
// missing here is a warning.
func checkMounts(mounts []string) Finding {
	var srcs, missing []string
	for _, m := range mounts {
		src, _, _ := strings.Cut(m, ":")
		srcs = append(srcs, src)
		if _, err := os.Stat(src); err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", src, unwrapPath(err)))
		}
	}
	if len(missing) > 0 {
		return Finding{"mounts", CheckWarn, "not on this machine: " + strings.Join(missing, ", ") +
			"; pyxis fails every step on a node that lacks a mount's source"}
	}
	return Finding{"mounts", CheckOK, strings.Join(srcs, ", ") + " on this machine (the compute nodes must have them too)"}
}

// checkFabric lists libfabric's providers, and the tcp provider's
// domains: the NICs the runner can be given with the nics parameter.
func checkFabric(ctx context.Context, r slurm.Commander) []Finding {
	out, err := r.Run(ctx, "fi_info", "-l")
	if err != nil {
		return []Finding{{"libfabric", CheckFail, err.Error()}}
	}
	var provs []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutSuffix(strings.TrimSpace(line), ":"); ok {
			provs = append(provs, p)
		}
	}
	checks := []Finding{{"libfabric", CheckOK, "providers on this machine: " + strings.Join(provs, ", ")}}
	out, err = r.Run(ctx, "fi_info", "-p", "tcp", "-t", "FI_EP_RDM")
	if err != nil {
		return append(checks, Finding{"nics", CheckWarn, err.Error()})
	}
	var nics []string
	for _, line := range strings.Split(string(out), "\n") {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "domain:"); ok && !slices.Contains(nics, strings.TrimSpace(d)) {
			nics = append(nics, strings.TrimSpace(d))
		}
	}
	return append(checks, Finding{"nics", CheckOK, "tcp domains on this machine (params nics): " + strings.Join(nics, ", ")})
}

// runnerVersionLine is what efaxx-runner --version prints, and nothing
// else: "efaxx-runner VERSION (COMMIT)".
var runnerVersionLine = regexp.MustCompile(`^efaxx-runner \S+ \(\S+\)$`)

// checkRunner runs runner --version, and checks that it answers as
// efaxx-runner does: another program may well take --version too.
func checkRunner(ctx context.Context, r slurm.Commander, runner string) Finding {
	out, err := r.Run(ctx, runner, "--version")
	if err != nil {
		return Finding{"runner", CheckFail, err.Error()}
	}
	v := strings.TrimSpace(string(out))
	if !runnerVersionLine.MatchString(v) {
		first, _, _ := strings.Cut(v, "\n")
		if len(first) > 80 {
			first = first[:80] + "..."
		}
		return Finding{"runner", CheckFail, fmt.Sprintf("%s is not efaxx-runner: its --version printed %q, not \"efaxx-runner VERSION (COMMIT)\" "+
			"(make build builds it next to efaxx; --runner or EFAXX_RUNNER names another)", runner, first)}
	}
	return Finding{"runner", CheckOK, v + " at " + runner}
}
