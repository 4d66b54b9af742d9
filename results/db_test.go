package results_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"efaxx/results"
)

// MustOpenDB opens a new store in a temporary directory and closes it when
// the test ends.
func MustOpenDB(tb testing.TB) *results.DB {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), "efaxx.db"))
}

// mustOpenPath opens the store at path and closes it when the test ends.
func mustOpenPath(tb testing.TB, path string) *results.DB {
	tb.Helper()
	db, err := results.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

func TestOpen_Pragmas(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"synchronous", "1"}, // NORMAL
	}
	// Hold two connections at once so that the pool has to open a second
	// one: the pragmas must hold on every connection, not just the first.
	for i := range 2 {
		conn, err := results.SQLDB(db).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, tt := range tests {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("connection %d: PRAGMA %s = %q, want %q", i, tt.pragma, got, tt.want)
			}
		}
	}
}

func TestOpen_MigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "efaxx.db")
	ctx := t.Context()

	applied := func() map[int]int64 {
		db, err := results.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := results.SQLDB(db).QueryContext(ctx, `SELECT version, applied_ns FROM migrations`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[int]int64{}
		for rows.Next() {
			var v int
			var ns int64
			if err := rows.Scan(&v, &ns); err != nil {
				t.Fatal(err)
			}
			m[v] = ns
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}

	first := applied()
	if _, ok := first[1]; !ok {
		t.Fatalf("migrations after first open = %v, want version 1", first)
	}
	second := applied()
	if len(second) != len(first) {
		t.Fatalf("migrations after re-open = %v, want %v", second, first)
	}
	for v, ns := range first {
		if second[v] != ns {
			t.Errorf("migration %d applied_ns = %d after re-open, want %d (not re-applied)", v, second[v], ns)
		}
	}
}

func TestOpen_Tables(t *testing.T) {
	db := MustOpenDB(t)
	for _, table := range []string{"migrations", "sweeps", "points", "runs", "ranks", "samples", "jobs"} {
		var n int
		err := results.SQLDB(db).QueryRowContext(t.Context(),
			`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n)
		if err != nil {
			t.Fatal(err)
		} else if n != 1 {
			t.Errorf("table %q: %d in sqlite_schema, want 1", table, n)
		}
	}
}

func TestOpen_NewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "efaxx.db")
	db := mustOpenPath(t, path)
	if _, err := results.SQLDB(db).ExecContext(t.Context(),
		`INSERT INTO migrations (version, name, applied_ns) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	if db, err := results.Open(t.Context(), path); err == nil {
		db.Close()
		t.Fatal("Open of a store with schema version 9999 succeeded, want an error")
	}
}

func TestOpen_Path(t *testing.T) {
	// The path travels inside a file: URI, so characters that mean something
	// there must still name the file they say.
	for _, name := range []string{"plain.db", "with space.db", "hash#.db", "question?.db", "percent%20.db"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			mustOpenPath(t, path)
			if _, err := os.Stat(path); err != nil {
				t.Errorf("Open(%q) did not create it: %v", path, err)
			}
		})
	}
}

// TestOpenExisting_NotStore: a file that is not a store is refused, and
// left as it was: no schema written into an empty file.
func TestOpenExisting_NotStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := results.OpenExisting(t.Context(), path); !errors.Is(err, results.ErrNotStore) {
		if err == nil {
			db.Close()
		}
		t.Errorf("OpenExisting of an empty file = %v, want ErrNotStore", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("OpenExisting wrote into an empty file: %v, %v", fi.Size(), err)
	}
	mustOpenPath(t, path) // Open makes it a store, and then OpenExisting takes it
	db, err := results.OpenExisting(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenExisting of a store = %v", err)
	}
	db.Close()
}
