package harness

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
)

// Filesystem types, as statfs(2) reports them, that compute nodes can
// share with a login node.
var sharedFS = map[int64]string{
	0x6969:     "nfs",
	0x0BD00BD0: "lustre",
	0x47504653: "gpfs",
	0x19830326: "beegfs",
	0xFF534D42: "cifs",
	0xFE534D42: "smb2",
	0x00C36400: "ceph",
	0xAAD7AAD7: "panfs",
	0x5346414F: "afs",
	0x01021997: "9p",
}

// Filesystem types that are local to one machine.
var localFS = map[int64]string{
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x01021994: "tmpfs",
	0x794C7630: "overlayfs",
	0x2FC12FC1: "zfs",
	0x65735546: "fuse", // could be either; see CheckShared
}

// CheckShared says whether compute nodes are likely to see dir: it
// returns "" when dir is on a network filesystem, by the type statfs
// reports (NFS, Lustre, GPFS, BeeGFS, CIFS, Ceph, PanFS, AFS, 9p) and not
// under /tmp, else a warning that says what it found. A dir not made yet is
// judged by its nearest parent that exists. It cannot know a cluster's
// mounts: a single-machine cluster, such as the testbed, needs no shared
// filesystem at all.
func CheckShared(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Sprintf("workdir %s: %v", dir, err)
	}
	st, err := statfsUp(abs)
	if err != nil {
		return fmt.Sprintf("workdir %s: %v", abs, err)
	}
	fsType := int64(st.Type)
	if _, ok := sharedFS[fsType]; ok && !underTmp(abs) {
		return ""
	}
	what := fmt.Sprintf("an unknown filesystem (type 0x%X)", fsType)
	if name, ok := localFS[fsType]; ok {
		what = name + ", a local filesystem"
		if name == "fuse" {
			what = "a FUSE filesystem, which may or may not be shared"
		}
	} else if name, ok := sharedFS[fsType]; ok {
		what = name + ", but under /tmp, which is local to each node on most clusters"
	}
	return fmt.Sprintf("workdir %s is on %s: the compute nodes must see it at the same path "+
		"(their ranks write their results there); fine when the cluster is this machine", abs, what)
}

// underTmp reports whether path is in /tmp or /var/tmp.
func underTmp(path string) bool {
	for _, tmp := range []string{"/tmp", "/var/tmp"} {
		if path == tmp || strings.HasPrefix(path, tmp+"/") {
			return true
		}
	}
	return false
}

// statfsUp runs statfs on path, or on its nearest parent that exists.
func statfsUp(path string) (*syscall.Statfs_t, error) {
	var st syscall.Statfs_t
	for {
		err := syscall.Statfs(path, &st)
		parent := filepath.Dir(path)
		switch {
		case err == nil:
			return &st, nil
		case err != syscall.ENOENT || parent == path:
			return nil, fmt.Errorf("statfs %s: %w", path, err)
		}
		path = parent
	}
}
