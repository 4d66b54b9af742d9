package results

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// migrationFS holds the schema as numbered SQL files, NNNN_name.sql. A
// migration is never edited once released; a change is a new file, with the
// next number after the highest. The numbers jump (0004, 0020, 0030) where
// branches wrote migrations at once: docs/schema.md says why; stores record
// them, so they stay.
//
//go:embed migration/*.sql
var migrationFS embed.FS

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrateTo applies, in version order, each embedded migration up to
// version last that the store lacks, each in its own transaction, recording
// it in the migrations table. Open goes to the newest; tests stop earlier
// to make a store of an older schema, then migrate it.
func (db *DB) migrateTo(ctx context.Context, last int) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	applied, err := db.appliedVersions(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.version > last {
			break
		}
		if applied[m.version] {
			continue // no write lock to take: readers open a store that a long ingest holds
		}
		if err := db.migrateOne(ctx, m); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	return db.checkVersion(ctx, ms[len(ms)-1].version)
}

// SchemaVersions returns the versions of the embedded migrations, in
// order; the last is the schema Open brings a store to.
func SchemaVersions() ([]int, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	vs := make([]int, len(ms))
	for i, m := range ms {
		vs[i] = m.version
	}
	return vs, nil
}

// appliedVersions returns the versions the store has, read without a write
// lock; an empty map for a new store.
func (db *DB) appliedVersions(ctx context.Context) (map[int]bool, error) {
	if found, err := hasMigrations(ctx, db.db); err != nil || !found {
		return map[int]bool{}, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT version FROM migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out[v] = true
	}
	return out, rows.Err()
}

// hasMigrations reports whether the database has the migrations table,
// which every efaxx store has and other databases do not.
func hasMigrations(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'migrations'`).Scan(&n)
	return n > 0, err
}

// migrations returns the embedded migrations sorted by version.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	ms := make([]migration, 0, len(names))
	for _, path := range names {
		name := strings.TrimPrefix(path, "migration/")
		prefix, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(prefix)
		if err != nil {
			return nil, fmt.Errorf("migration %q: name does not start with a version number", name)
		}
		text, err := migrationFS.ReadFile(path)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(text)})
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no embedded migrations")
	}
	return ms, nil
}

// migrateOne applies m unless the store already has it. The check runs
// inside the transaction, which holds the write lock from BEGIN, so two
// processes opening a new store at once apply each migration once.
func (db *DB) migrateOne(ctx context.Context, m migration) error {
	tx, err := beginWrite(ctx, db.db)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_ns INTEGER NOT NULL
	)`); err != nil {
		return err
	}
	// Ensure migration has not already been run.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return err
	} else if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (version, name, applied_ns) VALUES (?, ?, ?)`,
		m.version, m.name, db.Now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}

// checkVersion refuses a store that a newer efaxx has migrated past what
// this binary knows: its queries could misread the newer schema.
func (db *DB) checkVersion(ctx context.Context, known int) error {
	var max sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT MAX(version) FROM migrations`).Scan(&max); err != nil {
		return err
	}
	if int(max.Int64) > known {
		return fmt.Errorf("schema version %d is newer than this efaxx knows (%d)", max.Int64, known)
	}
	return nil
}
