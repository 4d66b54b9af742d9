package harness

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"efaxx/atomicfile"
	"efaxx/results/record"
)

// SpecFile is the name of the sweep's copy inside a session directory.
const SpecFile = "sweep.toml"

// Session is one execution of a sweep: a directory that holds the sweep's
// text and one run directory per point, which ingest reads.
//
//	<workdir>/<sweep>/<YYYYmmdd-HHMMSS>-<8 hex>/
//	    sweep.toml
//	    000-<point hash>/ run.json rank-00000.ndjson ... launcher.log
//	        output/1/rank.0/stderr ...   (efaxx run: each rank's output)
type Session struct {
	Dir   string
	ID    string // the last path element; unique
	Sweep *Sweep
}

// NewSession creates a session directory under workdir and writes the
// sweep's text into it.
func NewSession(workdir string, s *Sweep, now time.Time) (*Session, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("session id: %w", err)
	}
	id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
	dir := filepath.Join(workdir, s.Name, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, SpecFile), s.Text); err != nil {
		return nil, err
	}
	return &Session{Dir: dir, ID: id, Sweep: s}, nil
}

// RunDir returns the run directory of point p.
func (ss *Session) RunDir(p Point) string {
	return filepath.Join(ss.Dir, fmt.Sprintf("%03d-%s", p.Index, p.Hash))
}

// Manifest returns the manifest of a new run of p, not yet started.
func (ss *Session) Manifest(p Point, executor string) *record.Manifest {
	return &record.Manifest{
		UID:       fmt.Sprintf("%s-%03d", ss.ID, p.Index),
		Sweep:     ss.Sweep.Name,
		SweepFile: filepath.Join("..", SpecFile),
		SweepHash: ss.Sweep.Hash,
		Point:     p.Hash,
		Index:     p.Index,
		Benchmark: p.Tool(),
		Params:    p.Params(),
		Sizes:     p.Sizes,
		Ranks:     p.Ranks,
		Executor:  executor,
	}
}

// WriteManifest writes m into dir atomically, so ingest never reads half a
// manifest.
func WriteManifest(dir string, m *record.Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, record.ManifestName), append(data, '\n'))
}

// writeFileAtomic writes a file of the session whole or not at all,
// readable by its owner alone: a sweep's text may hold what a container's
// env keeps from the job script.
func writeFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o600) }

// WriteExternal writes the external.json of point p into its run
// directory dir, for efaxx-runner's external mode and for ingest; it
// does nothing for a point of efaxx-runner's own benchmarks.
func WriteExternal(dir string, p Point) error {
	if p.External == nil {
		return nil
	}
	spec, err := p.ExternalSpec(dir)
	if err != nil {
		return fmt.Errorf("point %d (%s): %w", p.Index, p.Label(), err)
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", record.ExternalName, err)
	}
	return writeFileAtomic(filepath.Join(dir, record.ExternalName), append(data, '\n'))
}
