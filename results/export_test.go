package results

import (
	"database/sql"
	"time"
)

// SQLDB exposes the connection pool to the external tests, which check
// pragmas and count rows.
func SQLDB(db *DB) *sql.DB { return db.db }

// OpenAt opens the store at path, migrating it no further than version
// last, so that tests can make a store of an earlier schema.
var OpenAt = openAt

// SetBusyTimeout sets the busy timeout of the stores opened after it, for
// tests that hold a lock longer than it, and returns the undo.
func SetBusyTimeout(d time.Duration) func() {
	old := busyTimeout
	busyTimeout = d
	return func() { busyTimeout = old }
}
