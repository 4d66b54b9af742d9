// Package results is the efaxx result store: a SQLite database that holds
// sweeps, points, runs, ranks and raw samples, fed by Ingest from the run
// directories that efaxx-runner and the executors write, and read by the
// queries behind runs, show, compare, check and plot.
//
// Only efaxx's commands on the login node write it: ingest, and import,
// tag, and the job records of submit and sync, each in a transaction that
// takes the write lock at BEGIN (beginWrite). Compute nodes never open it.
package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3" // the "sqlite3" driver, and its error codes
)

// ErrRunNotFound is returned, wrapped with the id, when a run id is not in
// the store.
var ErrRunNotFound = errors.New("not in the store")

// ErrNoStore is returned, wrapped with the path, by OpenExisting when
// there is no store at the path.
var ErrNoStore = errors.New("no store there")

// ErrNotStore is returned, wrapped with the path, by OpenExisting when
// the file at the path is not an efaxx store: an empty file, another
// program's database, or no database at all.
var ErrNotStore = errors.New("not an efaxx store")

// ErrNoPercentile is returned by Open when the binary's SQLite lacks the
// percentile functions (median, percentile) that every aggregate uses.
var ErrNoPercentile = errors.New("results: SQLite was built without median() and percentile(): " +
	"build efaxx with -tags sqlite_percentile (make build does)")

// busyTimeout is how long a connection waits for another writer's lock
// before it gives up with "database is locked" (and retryBusy asks again).
// A variable only so that tests of waiting need not take seconds.
var busyTimeout = 10 * time.Second

// DB is an open results store. It is safe for concurrent use.
type DB struct {
	db *sql.DB

	// Path is the database file as given to Open.
	Path string

	// Now returns the current time; it stamps ingested_ns and created_ns.
	// Open sets it to time.Now; tests replace it.
	Now func() time.Time
}

// Open opens the store at path, creating the file if it is missing, and
// applies any migrations it lacks.
func Open(ctx context.Context, path string) (*DB, error) {
	return openAt(ctx, path, math.MaxInt)
}

// OpenExisting opens the store at path as Open does, but never creates
// one: where there is no file it fails with an error wrapping ErrNoStore,
// and where the file is not a store, with ErrNotStore, leaving it as it
// was. The commands that only read open the store this way, so that a
// typo in a path is an error, not a new empty store that answers nothing.
func OpenExisting(ctx context.Context, path string) (*DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open results db %q: %w", path, ErrNoStore)
	}
	if err := checkStore(ctx, path); err != nil {
		return nil, openErr(path, err)
	}
	return open(ctx, path, math.MaxInt, "rw")
}

// checkStore fails with ErrNotStore unless the file at path is a database
// that efaxx has migrated. It looks read-only, without dataSource's
// pragmas (WAL is written into the file), and before any migration, so
// that a file that is not a store is left as it was, not made into one.
func checkStore(ctx context.Context, path string) error {
	uri, err := fileURI(path)
	if err != nil {
		return err
	}
	sqldb, err := sql.Open("sqlite3", uri+"?mode=ro")
	if err != nil {
		return err
	}
	defer sqldb.Close()
	var found bool
	err = retryBusy(ctx, func() (err error) {
		found, err = hasMigrations(ctx, sqldb)
		return err
	})
	var e sqlite3.Error
	switch {
	case errors.As(err, &e) && e.Code == sqlite3.ErrNotADB:
		return ErrNotStore
	case err != nil:
		return err
	case !found:
		return ErrNotStore
	}
	return nil
}

// openAt is Open, migrating no further than version last.
func openAt(ctx context.Context, path string, last int) (*DB, error) {
	return open(ctx, path, last, "rwc")
}

// open opens the store at path in SQLite's mode (rwc creates the file,
// rw does not), migrating it no further than version last.
func open(ctx context.Context, path string, last int, mode string) (*DB, error) {
	dsn, err := dataSource(path, mode)
	if err != nil {
		return nil, fmt.Errorf("open results db %q: %w", path, err)
	}
	sqldb, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open results db %q: %w", path, err)
	}
	db := &DB{db: sqldb, Path: path, Now: time.Now}
	if err := db.setUp(ctx, last); err != nil {
		// Ensure the pool is closed if the schema cannot be brought up.
		sqldb.Close()
		return nil, openErr(path, err)
	}
	return db, nil
}

// errReadonlyDirectory is SQLITE_READONLY_DIRECTORY, which go-sqlite3
// does not name.
var errReadonlyDirectory = sqlite3.ErrReadonly.Extend(6)

// openErr is err from opening the store at path, with the path, and with
// the cause where SQLite's words hide it: a store in a directory this user
// cannot write fails "attempt to write a readonly database", even to be
// read, since SQLite keeps its -wal and -shm files beside it.
func openErr(path string, err error) error {
	var e sqlite3.Error
	if errors.As(err, &e) && e.ExtendedCode == errReadonlyDirectory {
		err = fmt.Errorf("%w: its directory %s is not writable, and SQLite needs it for the store's -wal and -shm files, to read it too",
			err, filepath.Dir(path))
	}
	return fmt.Errorf("open results db %q: %w", path, err)
}

// setUp checks the SQLite build and migrates the store no further than
// version last, from the start again while the store is busy (retryBusy):
// another process may be creating it.
func (db *DB) setUp(ctx context.Context, last int) error {
	return retryBusy(ctx, func() error {
		if err := db.checkPercentile(ctx); err != nil {
			return err
		}
		return db.migrateTo(ctx, last)
	})
}

// Close closes the store.
func (db *DB) Close() error {
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("close results db %q: %w", db.Path, err)
	}
	return nil
}

// checkPercentile fails with ErrNoPercentile when median() is missing.
// go-sqlite3 compiles SQLite's percentile extension in only under the
// sqlite_percentile build tag; without it every query that aggregates
// would fail later, and less clearly.
func (db *DB) checkPercentile(ctx context.Context) error {
	var v float64
	err := db.db.QueryRowContext(ctx, `SELECT median(1)`).Scan(&v)
	if err != nil && strings.Contains(err.Error(), "no such function") {
		return ErrNoPercentile
	}
	return err
}

// dataSource returns the go-sqlite3 DSN for path. The pragmas travel in the
// DSN, not in one-off PRAGMA statements, so that every pooled connection
// gets them. _txlock=immediate makes every transaction take the write lock
// at BEGIN: two writers then queue on the busy timeout instead of one
// failing with "database is locked" when its read lock cannot be upgraded.
func dataSource(path, mode string) (string, error) {
	uri, err := fileURI(path)
	if err != nil {
		return "", err
	}
	q := url.Values{
		"_busy_timeout": {fmt.Sprint(busyTimeout.Milliseconds())},
		"_foreign_keys": {"on"},
		"_journal_mode": {"WAL"},
		"_synchronous":  {"NORMAL"},
		"_txlock":       {"immediate"},
		"mode":          {mode},
	}
	return uri + "?" + q.Encode(), nil
}

// fileURI returns the file: URI of path, escaped: a '?' or '#' in a name
// must not start SQLite's query.
func fileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return "file:" + (&url.URL{Path: abs}).EscapedPath(), nil
}
