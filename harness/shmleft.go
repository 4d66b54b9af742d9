package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"efaxx/results/record"
	"efaxx/shmregion"
)

// removeLeftRegions removes the shm regions that the ranks of the run in
// dir left in /dev/shm by ending without closing their endpoints (killed,
// crashed), once the launcher has exited, and returns how many it removed.
// A rank closes its own when it ends any other way; so does the runner
// when a later process comes with the same pid, but until then each left
// region holds 16 MiB of memory.
func removeLeftRegions(dir string, ranks int) int {
	n := 0
	for r := 0; r < ranks; r++ {
		pid := rankPID(filepath.Join(dir, record.RankFile(r)))
		if pid > 0 && !alive(pid) {
			n += len(shmregion.Remove(shmregion.Dir, pid))
		}
	}
	return n
}

// rankPID returns the pid in the fingerprint, the first line, of the
// rank file at path, or 0.
func rankPID(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		return 0
	}
	if fp, err := record.Decode(sc.Bytes()); err == nil {
		if r, ok := fp.(*record.Rank); ok {
			return r.PID
		}
	}
	return 0
}

// alive reports whether the process pid still runs. A zombie does not:
// it has let go of its memory and only waits to be reaped. mpirun may exit
// before it reaps its ranks, and then they wait for init, however long
// init takes to come round.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	// The state follows the command name, which is in parentheses and
	// may itself hold ")".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	return stat[i+2] != 'Z' && stat[i+2] != 'X'
}
