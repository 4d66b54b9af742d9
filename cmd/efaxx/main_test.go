package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// runnerPath is an efaxx-runner built once for the tests that run ranks.
var runnerPath string

// asMain, set in a child's environment, makes the test binary run as
// efaxx itself: the tests that need separate processes (two ingests at
// once, an ingest killed with SIGKILL) start it with the efaxx arguments.
const asMain = "EFAXX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Exit(run(context.Background(), append([]string{"efaxx"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "efaxx-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	runnerPath = filepath.Join(dir, "efaxx-runner")
	build := exec.Command("go", "build", "-o", runnerPath, "efaxx/cmd/efaxx-runner")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build efaxx-runner:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
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
