package results

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FingerprintField is one field of a run's rank fingerprints (libfabric,
// mpi, efaxx_version, host, provider, ...): each distinct value it has
// across the ranks, with the ranks that have it.
type FingerprintField struct {
	Key    string             `json:"key"`
	Values []FingerprintValue `json:"values"` // the value most ranks have first
}

// FingerprintValue is one value of a fingerprint field.
type FingerprintValue struct {
	Value json.RawMessage `json:"value"` // as the runner wrote it
	Ranks string          `json:"ranks"` // the ranks that have it, as ranges: "0-2,5"
	Count int             `json:"count"` // how many ranks
}

// Fingerprint is what a run's ranks said of where they ran.
type Fingerprint struct {
	Fields []FingerprintField `json:"fields"` // by key
	Ranks  int                `json:"ranks"`  // ranks with a fingerprint
	None   string             `json:"none"`   // the ranks without one, as ranges; "" when none lack one
}

// perRank are the fingerprint fields that differ from rank to rank by
// nature, and say nothing of the software or the fabric.
var perRank = []string{"type", "rank", "local_rank", "pid", "start_ns"}

// Fingerprint returns run id's fingerprint, field by field. The error
// wraps ErrRunNotFound for a run not stored.
func (db *DB) Fingerprint(ctx context.Context, id int64) (*Fingerprint, error) {
	if err := db.CheckRuns(ctx, []int64{id}); err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT rank, fingerprint FROM ranks WHERE run_id = ? ORDER BY rank`, id)
	if err != nil {
		return nil, fmt.Errorf("fingerprint of run %d: %w", id, err)
	}
	defer rows.Close()
	ranks := map[string]map[string][]int64{} // key → compact value → ranks
	fp := &Fingerprint{Fields: []FingerprintField{}}
	var none []int64
	for rows.Next() {
		var rank int64
		var text string
		if err := rows.Scan(&rank, &text); err != nil {
			return nil, fmt.Errorf("fingerprint of run %d: %w", id, err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &fields); err != nil || len(fields) == 0 {
			none = append(none, rank)
			continue
		}
		fp.Ranks++
		for k, v := range fields {
			if slices.Contains(perRank, k) {
				continue
			}
			var b bytes.Buffer
			if json.Compact(&b, v) != nil {
				continue
			}
			if ranks[k] == nil {
				ranks[k] = map[string][]int64{}
			}
			ranks[k][b.String()] = append(ranks[k][b.String()], rank)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("fingerprint of run %d: %w", id, err)
	}
	for k, byValue := range ranks {
		f := FingerprintField{Key: k}
		for v, rs := range byValue {
			f.Values = append(f.Values, FingerprintValue{Value: json.RawMessage(v), Ranks: Ranges(rs), Count: len(rs)})
		}
		slices.SortFunc(f.Values, func(a, b FingerprintValue) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(string(a.Value), string(b.Value)))
		})
		fp.Fields = append(fp.Fields, f)
	}
	slices.SortFunc(fp.Fields, func(a, b FingerprintField) int { return cmp.Compare(a.Key, b.Key) })
	fp.None = Ranges(none)
	return fp, nil
}

// Ranges writes ids as sorted ranges: "0-2,5,7-9".
func Ranges(ids []int64) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(ids[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ToolFingerprint returns, key by key, what the file of an imported run
// said of the tool that measured it (efaxx import nccl-tests: tool,
// version, nccl_version, busbw_over_algbw, ...), or nil for a run that
// efaxx's runner measured, whose stored fingerprint is its rank 0's. The
// error wraps ErrRunNotFound for a run not stored.
func (db *DB) ToolFingerprint(ctx context.Context, id int64) (map[string]json.RawMessage, error) {
	var text string
	err := db.db.QueryRowContext(ctx, `SELECT fingerprint FROM runs WHERE id = ?`, id).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %d: %w", id, ErrRunNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("fingerprint of run %d: %w", id, err)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &fields) != nil {
		return nil, nil
	}
	_, tool := fields["tool"]
	_, rank := fields["type"] // a rank's record: efaxx-runner wrote it
	if !tool || rank {
		return nil, nil
	}
	return fields, nil
}
