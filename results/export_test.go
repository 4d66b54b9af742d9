package results

import "database/sql"

// SQLDB exposes the connection pool to the external tests, which check
// pragmas and count rows.
func SQLDB(db *DB) *sql.DB { return db.db }

// Migrations is how many migrations a new store records.
func Migrations() int {
	ms, err := migrations()
	if err != nil {
		panic(err)
	}
	return len(ms)
}
