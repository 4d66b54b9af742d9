package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"efaxx/results/record"
	"efaxx/slurm"
)

// ImageRunner is where every efaxx image holds efaxx-runner, whichever
// recipe built it (make image, or enroot/Dockerfile): the steps run it by
// this path, so a PATH set in [container] env cannot hide it.
const ImageRunner = "/usr/local/bin/efaxx-runner"

// squashfsMagic opens every squashfs file ("hsqs", little-endian).
var squashfsMagic = []byte("hsqs")

// IsImagePath reports whether image names a squashfs file rather than a
// registry image: pyxis reads an image that starts with / or . as a path.
func IsImagePath(image string) bool {
	return strings.HasPrefix(image, "/") || strings.HasPrefix(image, ".")
}

// ContainerRunner returns the runner of sweeps that run in container c:
// efaxx-runner at ImageRunner, identified by the image's digest, so a
// rebuilt image counts as a new runner when a sweep is submitted again. A
// squashfs image must be a readable squashfs file here; its digest is the
// sha256 of its bytes. A registry image's digest is the one its reference
// pins (@sha256:...), or unknown.
func ContainerRunner(c *Container) (RunnerBinary, error) {
	r := RunnerBinary{Path: ImageRunner}
	if !IsImagePath(c.Image) {
		// The digest follows the last '@': a first one may end the
		// reference's USER@ (alice@nvcr.io#nvidia/efaxx:1).
		if i := strings.LastIndex(c.Image, "@"); i >= 0 && strings.HasPrefix(c.Image[i+1:], "sha256:") {
			r.Digest = c.Image[i+1:]
		}
		r.Version = "image " + c.Image
		if r.Digest != "" {
			r.Version = "image " + r.Digest
		}
		return r, nil
	}
	d, err := ImageDigest(c.Image)
	if err != nil {
		return RunnerBinary{}, err
	}
	r.Digest, r.Version = d, "image "+d
	return r, nil
}

// ImageDigest returns "sha256:HEX" of the squashfs file at path, or an
// error that names the path and says how to build the image.
func ImageDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("container image %s: %w (docs/slurm.md says how to build one)", path, unwrapPath(err))
	}
	defer f.Close()
	magic := make([]byte, len(squashfsMagic))
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, squashfsMagic) {
		return "", fmt.Errorf("container image %s: not a squashfs file (docs/slurm.md says how to build one)", path)
	}
	h := sha256.New()
	h.Write(magic)
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("container image %s: %w", path, unwrapPath(err))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// unwrapPath drops the path a *PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// container returns the pyxis settings of c for session ss and runner r.
// The session directory is mounted at its own path, so the ranks write
// their records where efaxx reads them; the container's name derives from
// the image, and the script makes it job-scoped. The sweep's variables,
// and efaxx's own, are set inside the container only: the job script
// never exports them.
func (ss *Session) container(c *Container, r RunnerBinary) *slurm.Container {
	sum := sha256.Sum256([]byte(c.Image))
	names := slices.Sorted(maps.Keys(c.Env))
	env := []slurm.EnvVar{{Name: record.EnvImage, Value: c.Image}, {Name: record.EnvImageDigest, Value: r.Digest},
		{Name: record.EnvImageEnv, Value: strings.Join(names, ",")}}
	for _, name := range names {
		env = append(env, slurm.EnvVar{Name: name, Value: c.Env[name]})
	}
	return &slurm.Container{
		Image:   c.Image,
		Name:    "efaxx_" + hex.EncodeToString(sum[:4]),
		Mounts:  append([]string{ss.Dir + ":" + ss.Dir}, c.Mounts...),
		Workdir: c.Workdir,
		Env:     env,
	}
}

// ImageRunnerVersion reads the version of the efaxx-runner that the
// squashfs image at path holds, without running it: unsquashfs (of
// squashfs-tools, which enroot needs too) extracts it (see ImageFile),
// and Go's build information gives the -X main.version and main.commit it
// was linked with, as "VERSION (COMMIT)". found is false when the image
// holds no efaxx-runner at ImageRunner.
func ImageRunnerVersion(ctx context.Context, path string) (version string, found bool, err error) {
	bin, found, err := ImageFile(ctx, path, ImageRunner)
	if err != nil || !found {
		return "", false, err
	}
	info, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		return "", true, fmt.Errorf("%s in %s: %w", ImageRunner, path, err)
	}
	for _, s := range info.Settings {
		if s.Key == "-ldflags" {
			v, c := ldflagsVar(s.Value, "main.version"), ldflagsVar(s.Value, "main.commit")
			if v != "" {
				return fmt.Sprintf("%s (%s)", v, c), true, nil
			}
		}
	}
	return "", true, fmt.Errorf("%s in %s: built without -X main.version", ImageRunner, path)
}

// ImageFile returns the contents of file in the squashfs image at path,
// through unsquashfs -cat; found is false when the image holds no such
// file. A symbolic link on the way (the runner linked from /opt, say) is
// followed inside the image, as the container follows it: unsquashfs -cat
// does not. An unsquashfs failure that does not say the file is missing
// (a corrupt image) is an error, not a missing file.
func ImageFile(ctx context.Context, path, file string) (data []byte, found bool, err error) {
	for hops := 0; ; hops++ {
		out, stderr, err := unsquashfs(ctx, "-cat", path, strings.TrimPrefix(file, "/"))
		if err == nil && len(out) > 0 {
			return out, true, nil
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return nil, false, fmt.Errorf("unsquashfs: %w (squashfs-tools looks inside images)", err)
		}
		m := unsquashfsLink.FindStringSubmatch(stderr)
		switch {
		case m == nil && (err == nil || unsquashfsMissing.MatchString(stderr)):
			return nil, false, nil
		case m == nil:
			return nil, false, fmt.Errorf("unsquashfs -cat %s %s: %s", path, file, lastLine(stderr))
		case hops == 40: // Linux's own bound on the links of one path
			return nil, false, fmt.Errorf("%s in %s: too many levels of symbolic links", file, path)
		}
		if file, err = followLink(ctx, path, m[1], file); err != nil {
			return nil, false, err
		}
	}
}

// What unsquashfs -cat says of a path it cannot cat: a symbolic link
// (the file, or a directory above it), or no such file.
var (
	unsquashfsLink    = regexp.MustCompile(`(?m)^cat: (/.*) failed to resolve symbolic link$`)
	unsquashfsMissing = regexp.MustCompile(`(?m)^cat: (no matches for |.* (does not exist|is a directory|is not a regular file)$)`)
)

// unsquashfs runs unsquashfs with args (paths inside the image taken as
// they are, not as wildcards) and returns its standard output and error.
func unsquashfs(ctx context.Context, args ...string) ([]byte, string, error) {
	cmd := exec.CommandContext(ctx, "unsquashfs", append([]string{"-no-wildcards"}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	return out.Bytes(), stderr.String(), err
}

// followLink returns file with its leading part link, a symbolic link in
// the squashfs image at path, replaced by where the link points, as the
// kernel resolves it in the container: an absolute target from the
// image's root, a relative one from the link's directory.
func followLink(ctx context.Context, path, link, file string) (string, error) {
	out, stderr, err := unsquashfs(ctx, "-lls", "-d", "", path, strings.TrimPrefix(link, "/"))
	if err != nil {
		return "", fmt.Errorf("unsquashfs -lls %s %s: %s", path, link, lastLine(stderr))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if _, target, ok := strings.Cut(line, " "+link+" -> "); ok && strings.HasPrefix(line, "l") {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(link), target)
			}
			return filepath.Join(target, strings.TrimPrefix(file, link)), nil
		}
	}
	return "", fmt.Errorf("unsquashfs -lls %s %s: lists no symbolic link", path, link)
}

// lastLine returns the last line of s that holds more than whitespace.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// ldflagsVar returns the value an -ldflags string gives name with -X.
func ldflagsVar(flags, name string) string {
	re := regexp.MustCompile(`-X[ =]` + regexp.QuoteMeta(name) + `=(\S+)`)
	if m := re.FindStringSubmatch(flags); m != nil {
		return strings.Trim(m[1], `'"`)
	}
	return ""
}

// containerFailure explains, from a failed container step's launcher
// log, why the container's ranks never ran: pyxis's own error (with the
// enroot messages it printed), or an image without efaxx-runner. Where
// enroot's log holds no [ERROR] line (a tool it ran failed, unsquashfs
// say), the log's last lines follow pyxis's error. A task whose pyxis was
// killed because another task failed first ("child N terminated with
// signal 15", which can come first in the log) says why only when no task
// says more, and what it says after that (it failed to create the
// container) is not the cause: srun --label's task numbers tell the
// tasks' lines apart. It returns "" when the log shows neither.
func containerFailure(log []byte, image string) string {
	var pyxis, enroot, enrootLog, killed []string
	missing := false
	type task struct{ inLog, killed bool }
	tasks := map[string]*task{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		text, who := sc.Text(), ""
		if m := taskLabel.FindStringSubmatch(text); m != nil {
			text, who = text[len(m[0]):], m[1]
		}
		tk := tasks[who]
		if tk == nil {
			tk = &task{}
			tasks[who] = tk
		}
		line := strings.TrimSpace(text)
		_, msg, isPyxis := strings.Cut(text, "pyxis: ")      // untrimmed: an empty line of enroot's log is "pyxis:     "
		logLine := isPyxis && strings.HasPrefix(msg, "    ") // pyxis indents the lines of enroot's log
		msg = strings.TrimSpace(msg)
		if logLine && tk.inLog && !tk.killed && msg != "" && !strings.HasPrefix(msg, "[ERROR]") {
			enrootLog = append(enrootLog, msg)
		}
		tk.inLog = (tk.inLog && logLine) || (isPyxis && strings.HasPrefix(msg, "printing enroot log file"))
		switch {
		case strings.Contains(line, ImageRunner+"': No such file or directory"),
			strings.Contains(line, ImageRunner+": No such file or directory"):
			missing = true
		case isPyxis && strings.Contains(msg, "terminated with signal"):
			killed = append(killed, msg)
			tk.killed = who != "" // unlabeled, its lines and others' are one stream
		case tk.killed:
		case isPyxis && strings.HasPrefix(msg, "[ERROR]"):
			enroot = append(enroot, msg)
		case isPyxis && !logLine && strings.Contains(line, "error"):
			pyxis = append(pyxis, msg)
		}
	}
	switch {
	case missing:
		return fmt.Sprintf("the container image %s holds no %s (docs/slurm.md says how to build the image)", image, ImageRunner)
	case len(enroot) > 0:
		return "the container did not start: pyxis: " + strings.Join(enroot, "; ")
	case len(pyxis) > 0 && len(enrootLog) > 0:
		return "the container did not start: pyxis: " + pyxis[0] + "; enroot: " +
			strings.Join(enrootLog[max(0, len(enrootLog)-3):], "; ")
	case len(pyxis) > 0:
		return "the container did not start: pyxis: " + pyxis[0]
	case len(killed) > 0:
		return "the container did not start: pyxis: " + killed[0]
	}
	return ""
}

// containerReason reads why a failed container step's ranks never ran
// from the ends of its output files (see containerFailure): pyxis writes
// to srun's log, the ranks' env(1) to the tasks' output.
func containerReason(dir string, mk slurm.StepMarkers, image string) string {
	var log []byte
	for _, path := range []string{mk.Output, filepath.Join(dir, slurm.LogName)} {
		if path != "" {
			log = append(log, fileTail(path, 64<<10)...)
		}
	}
	return containerFailure(log, image)
}

// fileTail returns the last n bytes of a file, or what it can read.
func fileTail(path string, n int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return append(b, '\n')
}
