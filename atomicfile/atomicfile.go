// Package atomicfile writes a file whole or not at all.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in path's directory,
// synced and renamed over path: a reader (ingest, sbatch, a browser) finds
// the old file or the new one, never part of one, and a failed write
// leaves the old one. The file gets perm.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := write(tmp, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// write fills and closes f.
func write(f *os.File, data []byte, perm os.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
