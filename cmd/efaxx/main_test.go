package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// testDir holds what the tests build once: efaxx-runner, tools/osu-pingpong.
var testDir string

// The efaxx-runner that runner builds once.
var (
	runnerOnce sync.Once
	runnerPath string
	runnerErr  error
)

// asMain, set in a child's environment, makes the test binary run as
// efaxx itself: the tests that need separate processes (two ingests at
// once, an ingest killed with SIGKILL) start it with the efaxx arguments.
const asMain = "EFAXX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Exit(run(signalContext(), append([]string{"efaxx"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	var err error
	if testDir, err = os.MkdirTemp("", "efaxx-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(testDir)
	os.Exit(code)
}

// runner returns an efaxx-runner, built once, for a test that runs ranks
// with mpirun or srun. Such a test needs MPI (and Open MPI as root asks
// for --allow-run-as-root, which efaxx gives) and takes seconds: -short
// skips it.
func runner(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs MPI ranks of efaxx-runner (make test runs it)")
	}
	runnerOnce.Do(func() {
		runnerPath = filepath.Join(testDir, "efaxx-runner")
		out, err := exec.Command("go", "build", "-o", runnerPath, "efaxx/cmd/efaxx-runner").CombinedOutput()
		if err != nil {
			runnerErr = fmt.Errorf("build efaxx-runner: %v\n%s", err, out)
		}
	})
	if runnerErr != nil {
		t.Fatal(runnerErr)
	}
	return runnerPath
}

// efaxx runs the command line in-process and returns its exit code and output.
func efaxx(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"efaxx"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sqlRow scans one row of a query on the store at path.
func sqlRow(t *testing.T, path, query string, dest ...any) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(query).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// count returns the result of a COUNT query on the store at path.
func count(t *testing.T, path, query string, args ...any) int {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
