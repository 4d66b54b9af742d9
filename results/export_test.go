package results

import "database/sql"

// SQLDB exposes the connection pool to the external tests, which check
// pragmas and count rows.
func SQLDB(db *DB) *sql.DB { return db.db }

// OpenAt opens the store at path, migrating it no further than version
// last, so that tests can make a store of an earlier schema.
var OpenAt = openAt
