package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"efaxx/results/record"
)

// rankFile is this rank's NDJSON file. Each record goes out in one write
// call, so a crash leaves only whole lines behind.
type rankFile struct{ *os.File }

func createRankFile(dir string, rank int) (rankFile, error) {
	path := filepath.Join(dir, record.RankFile(rank))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return rankFile{}, fmt.Errorf("create rank file: %w", err)
	}
	return rankFile{f}, nil
}

func (w rankFile) write(rec any) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", w.Name(), err)
	}
	return nil
}
