package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"efaxx/results/record"
)

// rankFile is this rank's NDJSON file. Each record goes out in one write
// call, so a crash leaves only whole lines behind. It is safe for the
// signal handler and the measuring thread at once; after the end record
// nothing more is written.
type rankFile struct {
	mu    sync.Mutex
	f     *os.File
	ended bool
}

func createRankFile(dir string, rank int) (*rankFile, error) {
	path := filepath.Join(dir, record.RankFile(rank))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create rank file: %w", err)
	}
	return &rankFile{f: f}, nil
}

// write appends one record; it does nothing once the file has ended.
func (w *rankFile) write(rec any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(rec)
}

func (w *rankFile) writeLocked(rec any) error {
	if w.ended {
		return nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if _, err := w.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", w.f.Name(), err)
	}
	return nil
}

// end writes the end record, once, and syncs the file.
func (w *rankFile) end(rec record.End) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return nil
	}
	err := w.writeLocked(rec)
	w.ended = true
	if err != nil {
		return err
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.f.Name(), err)
	}
	return nil
}

func (w *rankFile) Close() error { return w.f.Close() }
