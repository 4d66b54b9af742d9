package results

import (
	"errors"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// TestOpenErr_ReadonlyDirectory: a store in a directory this user cannot
// write fails to open, even to be read, with SQLite's "attempt to write a
// readonly database"; the error says why, naming the directory. (Made
// up, not met: the tests run as root, whom no directory refuses.)
func TestOpenErr_ReadonlyDirectory(t *testing.T) {
	err := openErr("/shared/lab/efaxx.db", sqlite3.Error{Code: sqlite3.ErrReadonly, ExtendedCode: errReadonlyDirectory})
	want := `open results db "/shared/lab/efaxx.db": attempt to write a readonly database: its directory /shared/lab ` +
		`is not writable, and SQLite needs it for the store's -wal and -shm files, to read it too`
	if err.Error() != want || !errors.As(err, new(sqlite3.Error)) {
		t.Errorf("openErr = %v, want %s, wrapping SQLite's error", err, want)
	}
	other := sqlite3.Error{Code: sqlite3.ErrReadonly, ExtendedCode: sqlite3.ErrReadonlyRollback}
	if err := openErr("x.db", other); err.Error() != `open results db "x.db": attempt to write a readonly database` {
		t.Errorf("openErr of another read-only error = %v, want it as SQLite says it", err)
	}
}
