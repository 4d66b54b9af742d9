package main

import (
	"context"
	"errors"
	"fmt"

	"efaxx/results"
)

// openStore opens the store at path for a command that reads it: a
// missing store is an error that names the path, never a new empty store,
// and so is a file that is not a store, which is left as it was. Only
// run, submit, ingest and import create one.
func openStore(ctx context.Context, path string) (*results.DB, error) {
	if path == "" {
		return nil, errEmptyDB
	}
	db, err := results.OpenExisting(ctx, path)
	switch {
	case errors.Is(err, results.ErrNoStore):
		return nil, fmt.Errorf("no store at %q (efaxx run, submit, ingest or import creates one; --db or EFAXX_DB names another)", path)
	case errors.Is(err, results.ErrNotStore):
		return nil, fmt.Errorf("no store at %q: the file is not an efaxx store (--db or EFAXX_DB names another)", path)
	}
	return db, err
}

// createStore opens the store at path for a command that writes it,
// creating it if missing.
func createStore(ctx context.Context, path string) (*results.DB, error) {
	if path == "" {
		return nil, errEmptyDB
	}
	return results.Open(ctx, path)
}

// errEmptyDB: an empty --db (or EFAXX_DB) names no file; it is a slip on
// the command line, not a store to look for.
var errEmptyDB = &usageError{msg: `--db "": want a file`, hint: "--db efaxx.db"}
