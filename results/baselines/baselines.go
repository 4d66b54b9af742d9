// Package baselines holds the baseline files that ship with efaxx: published
// numbers with their provenance, which efaxx import baseline stores and
// efaxx compare --baseline puts runs beside. See docs/metrics.md.
package baselines

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.toml
var files embed.FS

// Lookup returns the text of the shipped baseline called name (its file
// name without .toml), and whether there is one.
func Lookup(name string) ([]byte, bool) {
	b, err := files.ReadFile(name + ".toml")
	return b, err == nil
}

// Names returns the names of the shipped baselines, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".") // an embedded directory always reads
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}
