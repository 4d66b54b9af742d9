package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// lockWait is how long a writer keeps asking for the write lock before it
// gives up. Each BEGIN IMMEDIATE waits busyTimeout on its own; a second
// ingest of a large sweep may hold the lock, run directory after run
// directory, for minutes, and the process that waits should wait, not
// fail with "database is locked".
const lockWait = 30 * time.Minute

// beginner is what transactions begin on: a *sql.DB or a *sql.Conn.
type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// beginWrite begins a write transaction on b, asking again for the lock
// while another writer holds it, for up to lockWait. Every transaction of
// the store takes the write lock at BEGIN (see dataSource).
func beginWrite(ctx context.Context, b beginner) (*sql.Tx, error) {
	deadline := time.Now().Add(lockWait)
	for {
		tx, err := b.BeginTx(ctx, nil)
		if err == nil || !isBusy(err) || time.Now().After(deadline) || ctx.Err() != nil {
			if err != nil && isBusy(err) {
				err = fmt.Errorf("another process has held the write lock for over %s: %w", lockWait, err)
			}
			return tx, err
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var e sqlite3.Error
	return errors.As(err, &e) && e.Code == sqlite3.ErrBusy
}
