package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// lockWait is how long the store keeps asking for a lock another process
// holds before it gives up: a second ingest of a large sweep may hold the
// write lock, run directory after run directory, for minutes, and the
// process that waits should wait, not fail with "database is locked".
const lockWait = 30 * time.Minute

// retryBusy is the store's one policy for a busy database: it runs f again
// while f fails with SQLITE_BUSY, backing off from 1 ms to 100 ms, for up
// to lockWait or until ctx ends.
//
// Why retry at all, when every connection has a busy timeout: SQLite's
// busy handler waits only where waiting cannot deadlock. Each BEGIN
// IMMEDIATE waits busyTimeout on its own and then fails, however long the
// other writer needs; and two processes opening one new store at once get
// BUSY without any wait while the first converts the file to WAL. Both
// are a lock held for a while, not an error, so the store asks again.
func retryBusy(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(lockWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := f()
		if !isBusy(err) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("another process has held the lock for over %s: %w", lockWait, err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// beginner is what transactions begin on: a *sql.DB or a *sql.Conn.
type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// beginWrite begins a write transaction on b, waiting for the write lock
// as retryBusy does. Every transaction of the store takes the write lock
// at BEGIN (see dataSource).
func beginWrite(ctx context.Context, b beginner) (*sql.Tx, error) {
	var tx *sql.Tx
	err := retryBusy(ctx, func() (err error) {
		tx, err = b.BeginTx(ctx, nil)
		return err
	})
	return tx, err
}

// storeErr names the store in err when SQLite failed at the file itself:
// it is full, read-only, unreadable, damaged or held by another process.
// The error names only what was being written otherwise, as in `ingest
// "runs/x": database or disk is full`, which reads as if the fault were
// there. Every writer of the store returns its errors through it.
func (db *DB) storeErr(err error) error {
	var e sqlite3.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case sqlite3.ErrFull, sqlite3.ErrReadonly, sqlite3.ErrIoErr, sqlite3.ErrCantOpen, sqlite3.ErrPerm,
		sqlite3.ErrCorrupt, sqlite3.ErrNotADB, sqlite3.ErrBusy, sqlite3.ErrLocked:
		return fmt.Errorf("store %q: %w", db.Path, err)
	}
	return err
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var e sqlite3.Error
	return errors.As(err, &e) && e.Code == sqlite3.ErrBusy
}
