// Package shmregion finds the shared-memory regions that libfabric's shm
// provider leaves in /dev/shm when a process dies without closing its
// endpoints (a kill, a crash): 16 MiB an endpoint, held until someone
// removes them.
package shmregion

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Dir is where the shm provider keeps its regions.
const Dir = "/dev/shm"

// name matches the names libfabric's shm provider gives the regions of a
// process's endpoints: "PID:DOMAIN:EP".
var name = regexp.MustCompile(`^([0-9]+):[0-9]+:[0-9]+$`)

// Remove removes the regions in dir named after pid and returns their
// paths. The caller knows that no live process owns them: pid is its own
// before it has made any, or a process that has ended.
func Remove(dir string, pid int) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no /dev/shm: nothing shm could trip over
	}
	owner := strconv.Itoa(pid)
	var removed []string
	for _, e := range entries {
		m := name.FindStringSubmatch(e.Name())
		if m == nil || m[1] != owner {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}
