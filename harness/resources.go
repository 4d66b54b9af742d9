package harness

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"efaxx/lineerr"
	"efaxx/slurm"
	"efaxx/tomldoc"
)

// Resources is what a sweep asks of Slurm: its [slurm] table, but nodes,
// which is an axis of the points, and its [container] table.
type Resources struct {
	Partition     string        `json:"partition,omitempty"`       // "" for the cluster's default
	Account       string        `json:"account,omitempty"`         // "" for the user's default
	QOS           string        `json:"qos,omitempty"`             // "" for the default
	Constraint    string        `json:"constraint,omitempty"`      // node features, as sbatch --constraint takes them; "" for none
	Time          string        `json:"time,omitempty"`            // the time limit as written ("30", "1:00:00"); "" for the partition's
	TimeLimit     time.Duration `json:"time_limit_ns,omitempty"`   // Time, parsed; 0 for none
	NTasksPerNode int           `json:"ntasks_per_node,omitempty"` // 0: ranks / nodes of each point
	GPUsPerNode   int           `json:"gpus_per_node,omitempty"`   // 0: none asked for
	CPUsPerTask   int           `json:"cpus_per_task,omitempty"`   // 0: the default
	Exclusive     bool          `json:"exclusive,omitempty"`       // whole nodes
	MPI           string        `json:"mpi"`                       // srun --mpi: pmix (the default), pmi2 or none
	Extra         []string      `json:"extra,omitempty"`           // further sbatch options, "--name=value"
	Container     *Container    `json:"container,omitempty"`       // nil without a [container] table
}

// Container is the [container] table: the image the ranks run in, through
// pyxis and enroot.
type Container struct {
	Image   string            `json:"image"`             // an absolute squashfs path, or a registry reference [USER@][REGISTRY#]IMAGE[:TAG]
	Mounts  []string          `json:"mounts,omitempty"`  // SRC:DST[:FLAGS], SRC and DST absolute
	Workdir string            `json:"workdir,omitempty"` // absolute; "" for the image's
	Env     map[string]string `json:"env,omitempty"`     // variables set in the container, over the image's own
}

// defaultMPI is the srun --mpi plugin when a sweep names none: Open MPI,
// as the runner is built, bootstraps through PMIx.
const defaultMPI = "pmix"

// slurmKeys decode the keys of [slurm]; nodes, an axis, is a param.
var slurmKeys = map[string]func(d *decoder, e tomldoc.Entry){
	"partition":       func(d *decoder, e tomldoc.Entry) { d.readSbatchText(e, &d.res.Partition) },
	"account":         func(d *decoder, e tomldoc.Entry) { d.readSbatchText(e, &d.res.Account) },
	"qos":             func(d *decoder, e tomldoc.Entry) { d.readSbatchText(e, &d.res.QOS) },
	"constraint":      func(d *decoder, e tomldoc.Entry) { d.readSbatchText(e, &d.res.Constraint) },
	"time":            (*decoder).decodeTime,
	"ntasks_per_node": func(d *decoder, e tomldoc.Entry) { d.readCount(e, &d.res.NTasksPerNode) },
	"gpus_per_node":   func(d *decoder, e tomldoc.Entry) { d.readCount(e, &d.res.GPUsPerNode) },
	"cpus_per_task":   func(d *decoder, e tomldoc.Entry) { d.readCount(e, &d.res.CPUsPerTask) },
	"exclusive":       (*decoder).decodeExclusive,
	"mpi":             (*decoder).decodeMPI,
	"extra":           (*decoder).decodeExtra,
}

// containerKeys decode the keys of [container].
var containerKeys = map[string]func(d *decoder, e tomldoc.Entry){
	"image":   (*decoder).decodeImage,
	"mounts":  (*decoder).decodeMounts,
	"workdir": (*decoder).decodeWorkdir,
	"env":     (*decoder).decodeEnv,
}

// decodeSlurm checks the [slurm] table, key by key.
func (d *decoder) decodeSlurm(e tomldoc.Entry) {
	d.slurmTables = true
	names := append(slices.Sorted(maps.Keys(slurmKeys)), paramNames("slurm")...)
	d.decodeTable(e, names, func(c tomldoc.Entry) {
		if p := paramOf("slurm", c.Name()); p != nil {
			d.decodeParam(p, c)
		} else {
			slurmKeys[c.Name()](d, c)
		}
	})
}

// decodeContainer checks the [container] table, key by key.
func (d *decoder) decodeContainer(e tomldoc.Entry) {
	d.slurmTables = true
	d.res.Container = &Container{}
	d.decodeTable(e, slices.Sorted(maps.Keys(containerKeys)), func(c tomldoc.Entry) { containerKeys[c.Name()](d, c) })
	if d.res.Container.Image == "" && !d.failedAt(e.Key.String()) {
		d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: e.Line, Key: e.Key.String() + ".image", Err: ErrMissingKey})
	}
}

// decodeTable checks that e is a table whose keys are all in names, and
// hands each key to decode.
func (d *decoder) decodeTable(e tomldoc.Entry, names []string, decode func(c tomldoc.Entry)) {
	if _, ok := e.Value.(map[string]any); !ok {
		d.fail(e, tomldoc.TypeError("table", e.Value))
		return
	}
	for _, c := range d.doc.Children(e) {
		d.lines[c.Key.String()] = c.Line
		if !slices.Contains(names, c.Name()) {
			d.fail(c, tomldoc.UnknownKey(c.Name(), names))
			continue
		}
		decode(c)
	}
}

// failedAt reports whether an error was recorded at key or inside it.
func (d *decoder) failedAt(key string) bool {
	for _, e := range d.errs {
		if e.Key == key || strings.HasPrefix(e.Key, key+".") {
			return true
		}
	}
	return false
}

// readText reads a string that a job script can carry (see
// slurm.CheckValue) into dst.
func (d *decoder) readText(e tomldoc.Entry, dst *string) bool {
	s, ok := e.Value.(string)
	if !ok {
		d.fail(e, tomldoc.TypeError("string", e.Value))
		return false
	}
	if err := slurm.CheckValue(e.Name(), s); err != nil {
		d.fail(e, lineerr.Mark(ErrValue, "%v", err))
		return false
	}
	*dst = s
	return true
}

// readSbatchText reads a string that goes on an #SBATCH line.
func (d *decoder) readSbatchText(e tomldoc.Entry, dst *string) {
	var s string
	if !d.readText(e, &s) {
		return
	}
	if err := slurm.CheckSbatchValue(e.Name(), s); err != nil {
		d.fail(e, lineerr.Mark(ErrValue, "%v", err))
		return
	}
	*dst = s
}

// readCount reads a positive count.
func (d *decoder) readCount(e tomldoc.Entry, dst *int) {
	v, err := readInt(1, 1<<20)(e.Value)
	if err != nil {
		d.fail(e, err)
		return
	}
	*dst = v.(int)
}

// readPath reads an absolute path.
func (d *decoder) readPath(e tomldoc.Entry, dst *string) {
	var s string
	if !d.readText(e, &s) {
		return
	}
	if !filepath.IsAbs(s) {
		d.fail(e, lineerr.Mark(ErrValue, "%q is not an absolute path", s))
		return
	}
	*dst = s
}

func (d *decoder) decodeTime(e tomldoc.Entry) {
	var s string
	if !d.readText(e, &s) {
		return
	}
	limit, err := slurm.ParseTime(s)
	switch {
	case err != nil:
		d.fail(e, lineerr.Mark(ErrValue, "%v", err))
	case limit <= 0 && !slurm.Unlimited(s):
		// sbatch reads 0 as no limit too; efaxx asks that to be written out.
		d.fail(e, lineerr.Mark(ErrValue, "time %q: want a limit of more than 0, or UNLIMITED for none", s))
	default:
		d.res.Time, d.res.TimeLimit = s, limit
	}
}

func (d *decoder) decodeExclusive(e tomldoc.Entry) {
	b, ok := e.Value.(bool)
	if !ok {
		d.fail(e, tomldoc.TypeError("boolean", e.Value))
		return
	}
	d.res.Exclusive = b
}

func (d *decoder) decodeMPI(e tomldoc.Entry) {
	v, err := readString(oneOf("mpi plugin", "pmix", "pmi2", "none"))(e.Value)
	if err != nil {
		d.fail(e, err)
		return
	}
	d.res.MPI = v.(string)
}

// sbatchOption is the form of an extra option. Short options are refused:
// they could hide an option efaxx sets.
var sbatchOption = regexp.MustCompile(`^--[a-z][a-z0-9-]*(=.*)?$`)

// setByEfaxx are the sbatch options an extra may not set, each with the
// key that sets it, or "" when efaxx alone decides it: those efaxx writes
// into every script, an array (its tasks would share the steps' run
// directories), and those that keep sbatch from submitting the script as
// efaxx expects (parsable, test-only, wait). sbatch ignores --wrap,
// --help, --usage and --version in a script's #SBATCH lines.
var setByEfaxx = map[string]string{
	"job-name": "", "chdir": "", "output": "", "error": "", "array": "", "parsable": "", "test-only": "", "wait": "",
	"nodes": "[slurm] nodes", "ntasks": "[params] ranks", "ntasks-per-node": "[slurm] ntasks_per_node",
	"cpus-per-task": "[slurm] cpus_per_task", "gpus-per-node": "[slurm] gpus_per_node",
	"partition": "[slurm] partition", "account": "[slurm] account", "qos": "[slurm] qos",
	"time": "[slurm] time", "constraint": "[slurm] constraint", "exclusive": "[slurm] exclusive",
}

// unsafeExtra are the sbatch options an extra may not set for what they
// would do, each with why: those that set the job script's environment,
// which holds no sweep value (sbatch starts the #!/bin/bash script in it,
// so BASH_ENV, SHELLOPTS=xtrace with PS4, or PATH would run sweep text),
// and those that send the job to another cluster, where efaxx's squeue,
// sacct, scancel and scontrol, which pass no -M, would not find it.
// sbatch has --cluster beside --clusters (-M), both setting the clusters.
var unsafeExtra = map[string]string{
	"export":      exportWhy,
	"export-file": exportWhy,
	"get-user-env": "replaces the job script's environment with the user's login environment, " +
		"and the job script must run in the one efaxx submits it with",
	"clusters": clustersWhy,
	"cluster":  clustersWhy,
}

const (
	exportWhy = "sets variables in the job script's environment, which holds no sweep value " +
		"(BASH_ENV, SHELLOPTS with PS4, or PATH would run commands as the script's bash starts); " +
		"set the ranks' variables in [container] env or [external] env"
	clustersWhy = "submits to another cluster, and efaxx follows its jobs (squeue, sacct, scancel, scontrol) " +
		"on the default cluster only"
)

func (d *decoder) decodeExtra(e tomldoc.Entry) {
	list, ok := e.Value.([]any)
	if !ok {
		d.fail(e, tomldoc.TypeError("list of strings", e.Value))
		return
	}
	at := d.itemsAt(e)
	for i, item := range list {
		if err := checkExtra(item); err != nil {
			err = itemErr(i, err)
			d.fail(at(err), err)
			continue
		}
		d.res.Extra = append(d.res.Extra, item.(string))
	}
}

// checkExtra checks one extra sbatch option.
func checkExtra(item any) error {
	s, ok := item.(string)
	if !ok {
		return tomldoc.TypeError("string", item)
	}
	if err := slurm.CheckSbatchValue("sbatch option", s); err != nil {
		return lineerr.Mark(ErrValue, "%v", err)
	}
	if !sbatchOption.MatchString(s) {
		return lineerr.Mark(ErrValue, "sbatch option %q: want --name or --name=value", s)
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(s, "--"), "=")
	// sbatch reads a prefix of an option as the option, and some options
	// under other names: what counts is the option it sets.
	opt, err := slurm.SbatchOption(name)
	if err != nil {
		return lineerr.Mark(ErrValue, "sbatch option %q: %v", s, err)
	}
	reads := ""
	if opt != name {
		reads = fmt.Sprintf("sbatch reads --%s as --%s, and ", name, opt)
	}
	if key, set := setByEfaxx[opt]; set && key != "" {
		return lineerr.Mark(ErrValue, "sbatch option %q: %suse %s", s, reads, key)
	} else if set {
		return lineerr.Mark(ErrValue, "sbatch option %q: %sefaxx sets --%s itself", s, reads, opt)
	}
	if why, unsafe := unsafeExtra[opt]; unsafe {
		return lineerr.Mark(ErrValue, "sbatch option %q: %s--%s %s", s, reads, opt, why)
	}
	return nil
}

// registryRef is the form of an image reference pyxis pulls:
// [USER@][REGISTRY#]IMAGE[:TAG].
var registryRef = regexp.MustCompile(`^([A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+(:[0-9]+)?#)?[A-Za-z0-9._/-]+(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?$`)

func (d *decoder) decodeImage(e tomldoc.Entry) {
	var s string
	if !d.readText(e, &s) {
		return
	}
	image, err := resolveImage(s, filepath.Dir(d.file))
	if err == nil {
		err = checkArg("--container-image=IMAGE", len("--container-image=")+len(image))
	}
	if err != nil {
		d.fail(e, err)
		return
	}
	d.res.Container.Image = image
}

// resolveImage checks an image and makes a relative squashfs path
// absolute, from the sweep file's directory dir: the job runs elsewhere.
// pyxis takes every image whose first character is '.' or '/' as a path
// (from the job's directory), as IsImagePath does: ".images/x" too, not
// only "./" and "../".
func resolveImage(s, dir string) (string, error) {
	switch {
	case strings.HasPrefix(s, "dockerd://"):
		return "", lineerr.Mark(ErrValue, "image %q: compute nodes have no Docker daemon to import from; "+
			"import it on a build host (make sqush) and give the .sqsh path", s)
	case strings.Contains(s, "://"):
		return "", lineerr.Mark(ErrValue, "image %q: pyxis takes [USER@][REGISTRY#]IMAGE[:TAG] without a scheme, or a squashfs path", s)
	case filepath.IsAbs(s):
		return s, nil
	case IsImagePath(s):
		abs, err := filepath.Abs(filepath.Join(dir, s))
		if err != nil {
			return "", lineerr.Mark(ErrValue, "image %q: %v", s, err)
		}
		return abs, nil
	case strings.HasSuffix(s, ".sqsh") || strings.HasSuffix(s, ".squashfs"):
		// pyxis reads a path without / or ./ in front as a registry image.
		return "", lineerr.Mark(ErrValue, "image %q: a squashfs path must start with / or ./ (write \"./%s\")", s, s)
	case !registryRef.MatchString(s):
		return "", lineerr.Mark(ErrValue, "image %q: neither a squashfs path (/… or ./…) nor a registry reference [USER@][REGISTRY#]IMAGE[:TAG]", s)
	}
	return s, nil
}

// mountFlags is the form of a mount's flags, as enroot takes them:
// ro, rw, rprivate, x-create=dir, joined by '+'.
var mountFlags = regexp.MustCompile(`^[a-z0-9_=-]+(\+[a-z0-9_=-]+)*$`)

func (d *decoder) decodeMounts(e tomldoc.Entry) {
	list, ok := e.Value.([]any)
	if !ok {
		d.fail(e, tomldoc.TypeError("list of strings", e.Value))
		return
	}
	at := d.itemsAt(e)
	for i, item := range list {
		m, err := checkMount(item)
		if err != nil {
			err = itemErr(i, err)
			d.fail(at(err), err)
			continue
		}
		d.res.Container.Mounts = append(d.res.Container.Mounts, m)
	}
	// srun takes the mounts in one argument; a step's has the session
	// directory's mount too, which submit adds.
	arg := "--container-mounts=" + strings.Join(d.res.Container.Mounts, ",")
	if err := checkArg("--container-mounts=MOUNTS", len(arg)); err != nil {
		d.fail(e, err)
	}
}

// checkMount checks one SRC:DST[:FLAGS] mount. pyxis splits a mount at
// its colons and enroot writes it into an fstab line, where whitespace
// separates fields: a path can hold neither. pyxis hands the mounts to
// enroot as echo "SRC DST FLAGS" lines of a script that enroot sources, so
// a path can hold none of slurm.PyxisShellChars either ($, `, ", \).
func checkMount(item any) (string, error) {
	s, ok := item.(string)
	if !ok {
		return "", tomldoc.TypeError("string", item)
	}
	if err := slurm.CheckValue("mount", s); err != nil {
		return "", lineerr.Mark(ErrValue, "%v", err)
	}
	if strings.Contains(s, ",") {
		return "", lineerr.Mark(ErrValue, "mount %q: a comma separates mounts", s)
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return "", lineerr.Mark(ErrValue, "mount %q: holds whitespace, which enroot's mount table cannot carry in a path", s)
	}
	parts := strings.Split(s, ":")
	for i, part := range parts[:min(len(parts), 2)] {
		if j := strings.IndexAny(part, slurm.PyxisShellChars); j >= 0 {
			return "", lineerr.Mark(ErrValue, "mount %q: %s holds %q, which pyxis and enroot read through a shell "+
				"(pyxis writes each mount into a script that enroot sources)", s, []string{"SRC", "DST"}[i], part[j:j+1])
		}
	}
	switch {
	case len(parts) < 2:
		return "", lineerr.Mark(ErrValue, "mount %q: want SRC:DST or SRC:DST:FLAGS", s)
	case len(parts) > 3 || (len(parts) == 3 && filepath.IsAbs(parts[2])):
		return "", lineerr.Mark(ErrValue, "mount %q: a path holds ':', which pyxis reads as the separator of SRC:DST:FLAGS", s)
	case !filepath.IsAbs(parts[0]) || !filepath.IsAbs(parts[1]):
		return "", lineerr.Mark(ErrValue, "mount %q: SRC and DST must be absolute paths", s)
	case len(parts) == 3 && !mountFlags.MatchString(parts[2]):
		return "", lineerr.Mark(ErrValue, "mount %q: flags %q: want words like ro or rprivate joined by '+'", s, parts[2])
	}
	return s, nil
}

// decodeWorkdir reads [container] workdir: an absolute path that pyxis can
// hand to enroot (see CheckContainerPath).
func (d *decoder) decodeWorkdir(e tomldoc.Entry) {
	var s string
	d.readPath(e, &s)
	err := CheckContainerPath("workdir", s)
	if err == nil {
		err = checkArg("--container-workdir=DIR", len("--container-workdir=")+len(s))
	}
	if err != nil {
		d.fail(e, err)
		return
	}
	d.res.Container.Workdir = s
}

// CheckContainerPath refuses a path that pyxis and enroot cannot carry
// into a container: one with whitespace or ':', or with a character that
// the shell through which they read mounts would act on ($, `, ", \; see
// checkMount). The session directory is mounted into every container at
// its own path, so it is checked too; a workdir is held to the same.
func CheckContainerPath(what, path string) error {
	if i := strings.IndexFunc(path, func(r rune) bool { return r == ':' || unicode.IsSpace(r) }); i >= 0 {
		return lineerr.Mark(ErrValue, "%s %q: holds %q, which pyxis and enroot cannot carry in a container path", what, path, path[i:i+1])
	}
	if i := strings.IndexAny(path, slurm.PyxisShellChars); i >= 0 {
		return lineerr.Mark(ErrValue, "%s %q: holds %q, which pyxis and enroot cannot carry in a container path "+
			"(they read mounts through a shell)", what, path, path[i:i+1])
	}
	return nil
}

// envName is the form of an environment variable's name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedEnv are the prefixes of the variables a [container] env may not
// set, with why: efaxx passes its own to the runner, and the launch hands
// every rank its identity and its way to PMIx.
var reservedEnv = []struct{ prefix, why string }{
	{"EFAXX_", "efaxx sets EFAXX_ variables for the runner itself"},
	{"SLURM_", "srun sets SLURM_ variables for each rank; the runner reads its rank from them"},
	{"PMIX_", "srun --mpi=pmix sets PMIX_ variables for each rank's bootstrap"},
	{"PMI_", "srun sets PMI_ variables for each rank's bootstrap"},
	{"OMPI_COMM_WORLD_", "the launcher sets OMPI_COMM_WORLD_ variables for each rank; the runner reads its rank from them"},
}

func (d *decoder) decodeEnv(e tomldoc.Entry) {
	if _, ok := e.Value.(map[string]any); !ok {
		d.fail(e, tomldoc.TypeError("table of strings", e.Value))
		return
	}
	env := map[string]string{}
	for _, c := range d.doc.Children(e) {
		if !envName.MatchString(c.Name()) {
			d.fail(c, lineerr.Mark(ErrValue, "%q is not a variable name: want letters, digits and '_', not starting with a digit", c.Name()))
			continue
		}
		if i := slices.IndexFunc(reservedEnv, func(r struct{ prefix, why string }) bool {
			return strings.HasPrefix(c.Name(), r.prefix)
		}); i >= 0 {
			d.fail(c, lineerr.Mark(ErrValue, "%s is efaxx's to set: %s", c.Name(), reservedEnv[i].why))
			continue
		}
		var v string
		if !d.readText(c, &v) {
			continue
		}
		if err := checkArg("NAME=VALUE", len(c.Name())+1+len(v)); err != nil {
			d.fail(c, err)
			continue
		}
		env[c.Name()] = v
	}
	d.res.Container.Env = env
}

// maxShapeErrors bounds the nodes values whose ranks checkShape reports
// one by one; it names the rest in one more error.
const maxShapeErrors = 3

// checkShape checks, once the axes are known, that the ranks of every
// point spread evenly over its nodes, agreeing with ntasks_per_node when
// it is given. It reports a nodes value once, with every ranks value that
// does not fit it, so that long lists of both give a few lines, not one
// per pair.
func (d *decoder) checkShape(s *Sweep) {
	if d.failed[paramNamed("ranks")] || d.failed[paramNamed("nodes")] || d.failedAt("slurm.ntasks_per_node") {
		return
	}
	tpn := d.res.NTasksPerNode
	if _, ranksSet := d.values[paramNamed("ranks")]; tpn > 0 && !ranksSet {
		d.checkTasks(s, s.valuesOf("nodes"), tpn)
		return
	}
	reported := 0
	var rest []any // nodes values that fail past the first maxShapeErrors
	for _, n := range s.valuesOf("nodes") {
		var uneven, others, perNode []any
		for _, r := range s.valuesOf("ranks") {
			switch {
			case r.(int)%n.(int) != 0:
				uneven = append(uneven, r)
			case tpn > 0 && r.(int) != n.(int)*tpn:
				others, perNode = append(others, r), append(perNode, r.(int)/n.(int))
			}
		}
		switch {
		case len(uneven)+len(others) == 0:
			continue
		case reported == maxShapeErrors:
			rest = append(rest, n)
			continue
		}
		reported++
		if len(uneven) > 0 {
			d.shapeError(lineerr.Mark(ErrValue, "ranks = %s do not spread evenly over nodes = %d", listText(uneven), n))
		}
		if len(others) > 0 {
			d.shapeError(lineerr.Mark(ErrValue, "ranks = %s over nodes = %d %s %s per node, but ntasks_per_node = %d",
				listText(others), n, isAre(others), listText(perNode), tpn))
		}
	}
	if len(rest) > 0 {
		d.shapeError(lineerr.Mark(ErrValue, "ranks do not fit nodes = %s either", listText(rest)))
	}
}

// checkTasks checks that nodes × ntasks_per_node, a point's ranks when the
// file gives no ranks, is a count each benchmark of the sweep runs on (the
// queue one rank, ipc at most 64), for every nodes value in one error a
// benchmark.
func (d *decoder) checkTasks(s *Sweep, nodes []any, tpn int) {
	for _, name := range s.Benchmarks {
		b := benchmark(name)
		var bad, ranks []any
		for _, n := range nodes {
			if r := n.(int) * tpn; r < b.MinRanks || r > b.MaxRanks {
				bad, ranks = append(bad, n), append(ranks, r)
			}
		}
		if len(bad) > 0 {
			d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: d.lines["slurm.ntasks_per_node"], Key: "slurm.ntasks_per_node",
				Err: lineerr.Mark(ErrValue, "nodes = %s × ntasks_per_node = %d %s %s ranks: benchmark %s runs on %s",
					listText(bad), tpn, isAre(bad), listText(ranks), name, rangeText(b))})
		}
	}
}

// listText writes values in a message: "3", "3 and 5", "3, 5 and 7", and
// past five of them the first five and the count: "3, 5, 7, 9, 11, …
// (100 values)".
func listText(vals []any) string {
	var words []string
	for _, v := range vals[:min(len(vals), 5)] {
		words = append(words, fmt.Sprint(v))
	}
	switch {
	case len(vals) > len(words):
		return fmt.Sprintf("%s, … (%d values)", strings.Join(words, ", "), len(vals))
	case len(words) == 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// isAre returns the verb for the values of a listText.
func isAre(vals []any) string {
	if len(vals) == 1 {
		return "is"
	}
	return "are"
}

// shapeError records an error of the shape against the nodes key, or the
// ranks key when the file does not set nodes.
func (d *decoder) shapeError(err error) {
	p := paramNamed("nodes")
	if _, set := d.entries[p]; !set {
		p = paramNamed("ranks")
	}
	d.failParam(p, err)
}
