package results

import "database/sql"

// SQLDB exposes the connection pool to the external tests, which check
// pragmas and count rows.
func SQLDB(db *DB) *sql.DB { return db.db }
