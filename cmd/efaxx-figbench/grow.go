package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"efaxx/results/record"
)

// grower copies run directories, each rank ranks times and each sample
// peers times (as further peers), with jittered times: a synthetic store
// of the data's sweeps, points and variants, as many times larger.
type grower struct {
	ranks, peers int
}

// countSamples counts the sample records under dir.
func countSamples(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".ndjson") {
			return err
		}
		b, err := os.ReadFile(path)
		n += bytes.Count(b, []byte(`"type":"sample"`))
		return err
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("no samples under %s", dir)
	}
	return n, err
}

// grow copies every run directory under src to the same place under dst,
// and each session's sweep.toml, and returns the samples written.
func (g grower) grow(src, dst string) (int, error) {
	total := 0
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != record.ManifestName {
			return err
		}
		rel, err := filepath.Rel(src, filepath.Dir(path))
		if err != nil {
			return err
		}
		n, err := g.growRun(filepath.Dir(path), filepath.Join(dst, rel))
		total += n
		return err
	})
	return total, err
}

// growRun copies one run directory.
func (g grower) growRun(src, dst string) (int, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, err
	}
	if spec, err := os.ReadFile(filepath.Join(src, "..", "sweep.toml")); err == nil {
		if err := os.WriteFile(filepath.Join(dst, "..", "sweep.toml"), spec, 0o644); err != nil {
			return 0, err
		}
	}
	ranks, err := g.manifest(src, dst)
	if err != nil {
		return 0, err
	}
	total := 0
	for rank := range ranks {
		lines, err := readLines(filepath.Join(src, record.RankFile(rank)))
		if err != nil {
			return 0, err
		}
		for k := range g.ranks {
			n, err := g.rankFile(dst, lines, rank*g.ranks+k, ranks*g.ranks, k)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

// manifest writes the run.json of the grown run and returns the ranks of
// the original.
func (g grower) manifest(src, dst string) (int, error) {
	var m map[string]any
	b, err := os.ReadFile(filepath.Join(src, record.ManifestName))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", src, err)
	}
	ranks := int(m["ranks"].(float64))
	m["uid"] = fmt.Sprint(m["uid"], "-synth")
	m["ranks"] = ranks * g.ranks
	out, err := json.Marshal(m)
	if err != nil {
		return 0, err
	}
	return ranks, os.WriteFile(filepath.Join(dst, record.ManifestName), out, 0o644)
}

// readLines returns the records of a rank file, decoded; none when the
// rank left no file.
func readLines(path string) ([]map[string]any, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// rankFile writes the records of copy k of a rank as rank rank of world,
// each sample g.peers times, and returns the samples written.
func (g grower) rankFile(dst string, recs []map[string]any, rank, world, k int) (int, error) {
	f, err := os.Create(filepath.Join(dst, record.RankFile(rank)))
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	n := 0
	for _, rec := range recs {
		rec["rank"] = rank
		switch rec["type"] {
		case record.TypeRank:
			rec["world"], rec["host"] = world, fmt.Sprintf("%v-synth%d", rec["host"], k)
		case record.TypeSample:
			for p := range g.peers {
				if err = enc.Encode(jittered(rec, world, k, p)); err != nil {
					break
				}
				n++
			}
			continue
		}
		if err == nil {
			err = enc.Encode(rec)
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// jittered returns copy p of sample rec on rank copy k: a peer of its own
// and its elapsed time scaled by up to ±10%, the same each time.
func jittered(rec map[string]any, world, k, p int) map[string]any {
	out := make(map[string]any, len(rec))
	for key, v := range rec {
		out[key] = v
	}
	out["peer"] = rec["peer"].(float64) + float64(p*world)
	scale := 1 + 0.1*math.Sin(float64(7*k+13*p+1))
	out["elapsed_ns"] = math.Max(1, math.Round(rec["elapsed_ns"].(float64)*scale))
	return out
}
