package main

import (
	"bufio"
	"os"
	"strings"

	"efaxx/results/record"
)

// Where a rank runs: the operating system it sees, whether it is in a
// container, and the image efaxx started it in, which efaxx passes through
// the variables record.EnvImage and those after it.

// where fills the OS, InContainer and Image of fingerprint r.
func where(r *record.Rank, getenv func(string) string) {
	r.OS = osName("/etc/os-release")
	r.InContainer = inContainer("/proc/self/mountinfo")
	ref := getenv(record.EnvImage)
	if ref == "" {
		return
	}
	r.Image = &record.Image{Ref: ref, Digest: getenv(record.EnvImageDigest)}
	for _, name := range strings.Split(getenv(record.EnvImageEnv), ",") {
		if name != "" {
			if r.Image.Env == nil {
				r.Image.Env = map[string]string{}
			}
			r.Image.Env[name] = getenv(name)
		}
	}
}

// osName returns PRETTY_NAME of an os-release file, or "" without one.
func osName(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// inContainer reports whether the root filesystem in a mountinfo file is
// a container's: a directory of another filesystem mounted as / (enroot's
// pivot_root, a chroot), or an overlay (Docker, Podman). A btrfs root is a
// subvolume, a directory too, on many hosts, so it does not count.
func inContainer(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[4] != "/" {
			continue
		}
		fstype := ""
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) {
				fstype = fields[i+1]
				break
			}
		}
		// The last mount on / is the one the rank sees.
		in = strings.Contains(fstype, "overlay") || (fields[3] != "/" && fstype != "btrfs")
	}
	return in
}
