package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// shmRegion matches the names libfabric's shm provider gives the regions
// of a process's endpoints in /dev/shm: "PID:DOMAIN:EP".
var shmRegion = regexp.MustCompile(`^([0-9]+):[0-9]+:[0-9]+$`)

// removeStaleRegions removes the regions in dir (/dev/shm) named after
// pid, before the process of that pid has made any. A killed process
// cannot remove its regions; when its pid comes round again, shm finds
// the name taken by a region whose owner, now this process, is alive,
// and refuses the endpoint (fi_enable: EBUSY). It returns the paths it
// removed.
func removeStaleRegions(dir string, pid int) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no /dev/shm: nothing shm could trip over
	}
	var removed []string
	for _, e := range entries {
		m := shmRegion.FindStringSubmatch(e.Name())
		if m == nil || m[1] != strconv.Itoa(pid) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}
