package results_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"efaxx/results"
)

// TestMigrate_FromEveryVersion makes a store of each earlier schema
// version, writes rows into it, opens it with today's code (which migrates
// it to the latest), and checks that every row survived and reads back
// through today's queries.
func TestMigrate_FromEveryVersion(t *testing.T) {
	versions, err := results.SchemaVersions()
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) < 2 {
		t.Fatalf("versions = %v: nothing to migrate from", versions)
	}
	for _, v := range versions[:len(versions)-1] {
		t.Run(fmt.Sprintf("from %d", v), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			old, err := results.OpenAt(t.Context(), path, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fixtures(t, v) {
				if _, err := results.SQLDB(old).ExecContext(t.Context(), f); err != nil {
					t.Fatal(err)
				}
			}
			before := tableCounts(t, old)
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}

			db := mustOpenPath(t, path)
			after := tableCounts(t, db)
			for table, n := range before {
				if after[table] != n {
					t.Errorf("table %s: %d rows after migrating, want %d", table, after[table], n)
				}
			}
			checkMigrated(t, db, versions)
		})
	}
}

// fixtures returns the texts of testdata/migrate/NNNN_rows.sql up to
// version v, in order: the rows a store of version v holds, each file
// adding what its version's ingest writes.
func fixtures(t *testing.T, v int) []string {
	t.Helper()
	paths, err := filepath.Glob("testdata/migrate/*_rows.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		n, err := strconv.Atoi(strings.SplitN(filepath.Base(p), "_", 2)[0])
		if err != nil {
			t.Fatalf("fixture %s: %v", p, err)
		}
		if n > v {
			break
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// checkMigrated checks that the fixture's run reads back through today's
// queries, and that the store is at the latest version.
func checkMigrated(t *testing.T, db *results.DB, versions []int) {
	t.Helper()
	run, err := db.Run(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if run.UID != "uid-old" || run.Samples != 4 || !reflect.DeepEqual(run.Hosts, []string{"n1", "n2"}) {
		t.Errorf("Run(1) = %+v", run)
	}
	runs, err := db.Runs(t.Context(), results.RunFilter{Host: "n2"})
	if err != nil || len(runs) != 1 {
		t.Errorf("runs on host n2 = %v, %v; want run 1 (hosts backfilled)", runs, err)
	}
	stats, err := db.SizeStats(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 2 || !near(stats[0].BwMaxGbps, 0.8) || !near(stats[0].BwMinGbps, 0.4) {
		t.Errorf("SizeStats(1) = %+v, want 2 sizes, 0.4 to 0.8 Gbps at the first", stats)
	}
	var n, top int
	if err := results.SQLDB(db).QueryRowContext(t.Context(),
		`SELECT COUNT(*), MAX(version) FROM migrations`).Scan(&n, &top); err != nil {
		t.Fatal(err)
	}
	if n != len(versions) || top != versions[len(versions)-1] {
		t.Errorf("migrations: %d, up to %d; want %d, up to %d", n, top, len(versions), versions[len(versions)-1])
	}
}
