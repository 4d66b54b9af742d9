package harness_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"efaxx/harness"
)

// tomlBlock is a ```toml block of a Markdown file.
var tomlBlock = regexp.MustCompile("(?ms)^```toml\n(.*?)^```")

// tableHeader matches the first line of a table.
var tableHeader = regexp.MustCompile(`(?m)^\[`)

// topKey matches a key of a block's top-level table that a sweep needs.
var topKey = regexp.MustCompile(`(?m)^(name|benchmark)\s*=`)

// isSweep reports whether a block is a whole sweep, not a fragment or a
// figure spec: before any table, it sets the two keys every sweep needs.
func isSweep(block []byte) bool {
	if i := tableHeader.FindIndex(block); i != nil {
		block = block[:i[0]]
	}
	return len(topKey.FindAll(block, -1)) == 2
}

// TestDocExamplesValidate: every whole sweep the docs show is one that
// efaxx validate accepts, so that a reader who copies one starts from a
// sweep that works.
func TestDocExamplesValidate(t *testing.T) {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range append(files, "../README.md") {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range tomlBlock.FindAllSubmatch(text, -1) {
			if !isSweep(m[1]) {
				continue
			}
			n++
			// Lines are the block's, from its first.
			if _, err := harness.Parse(fmt.Sprintf("%s (toml block %d)", file, i+1), m[1]); err != nil {
				t.Error(err)
			}
		}
	}
	if n < 3 {
		t.Errorf("found %d whole sweeps in the docs, want at least 3 (sweeps.md, external.md, README.md)", n)
	}
}
