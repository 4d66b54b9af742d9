package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrBadTag is returned, wrapped with the tag, for a tag key that is empty
// or holds '=' or a comma, which the command line could not spell.
var ErrBadTag = errors.New("bad tag")

// CheckTagKey returns an error wrapping ErrBadTag unless key can be a tag
// key.
func CheckTagKey(key string) error {
	if key == "" || strings.ContainsAny(key, "=,") {
		return fmt.Errorf("tag key %q: %w: want a non-empty key without '=' or ','", key, ErrBadTag)
	}
	return nil
}

// SetTags sets the tags set on run id and deletes the keys in del, in one
// transaction, or returns an error wrapping ErrRunNotFound. Ingest stores
// the manifest's tags when it first stores a run and never touches them
// again, so what is set or deleted here stays.
func (db *DB) SetTags(ctx context.Context, id int64, set map[string]string, del []string) (err error) {
	defer func() { err = db.storeErr(err) }()
	for k := range set {
		if err := CheckTagKey(k); err != nil {
			return fmt.Errorf("tag run %d: %w", id, err)
		}
	}
	tx, err := beginWrite(ctx, db.db)
	if err != nil {
		return fmt.Errorf("tag run %d: %w", id, err)
	}
	defer tx.Rollback()
	if err := runExistsTx(ctx, tx, id); err != nil {
		return err
	}
	if err := setTags(ctx, tx, id, set, del); err != nil {
		return fmt.Errorf("tag run %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("tag run %d: %w", id, err)
	}
	return nil
}

// setTags writes set and deletes del within tx.
func setTags(ctx context.Context, tx *sql.Tx, id int64, set map[string]string, del []string) error {
	for _, k := range del {
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_tags WHERE run_id = ? AND key = ?`, id, k); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)
			ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value`, id, k, set[k]); err != nil {
			return err
		}
	}
	return nil
}

// addTags stores the manifest's tags of new run id. Keys the command line
// cannot spell are skipped.
func addTags(ctx context.Context, tx *sql.Tx, id int64, tags map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if CheckTagKey(k) != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)
			ON CONFLICT (run_id, key) DO NOTHING`, id, k, tags[k]); err != nil {
			return err
		}
	}
	return nil
}

// replaceRunHosts makes hosts the run_hosts rows of run id.
func replaceRunHosts(ctx context.Context, tx *sql.Tx, id int64, hosts []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_hosts WHERE run_id = ?`, id); err != nil {
		return err
	}
	for _, h := range hosts {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO run_hosts (host, run_id) VALUES (?, ?)`, h, id); err != nil {
			return err
		}
	}
	return nil
}

// runExistsTx returns nil when run id is stored, or an error wrapping
// ErrRunNotFound.
func runExistsTx(ctx context.Context, tx *sql.Tx, id int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE id = ?`, id).Scan(&n); err != nil {
		return fmt.Errorf("run %d: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("run %d: %w", id, ErrRunNotFound)
	}
	return nil
}
