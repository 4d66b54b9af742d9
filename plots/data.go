package plots

import (
	"context"
	"fmt"
	"os"

	"efaxx/results"
)

// DataDir is where the run directories behind the README's figures are
// committed; SpecDir holds the figure specs.
const (
	DataDir = "plots/data"
	SpecDir = "plots/figures"
)

// OpenData stores the run directories under dir in a new store at path,
// which must not exist, and returns it open: the store the README's
// figures are drawn from. A line of the data that ingest cannot use is an
// error, since committed data is expected to be whole.
func OpenData(ctx context.Context, dir, path string) (*results.DB, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("figure data store %q: exists already", path)
	}
	db, err := results.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	rep, err := db.Ingest(ctx, dir)
	if err == nil && len(rep.Problems) > 0 {
		err = fmt.Errorf("%s (and %d more problems)", rep.Problems[0], len(rep.Problems)-1)
	}
	if err == nil && len(rep.Runs) == 0 {
		err = fmt.Errorf("no run directories")
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("figure data %q: %w", dir, err)
	}
	return db, nil
}
