package plots_test

import (
	"os"
	"regexp"
	"testing"

	"efaxx/plots"
)

// specBlock is the ```toml block of docs/figures.md that follows its
// "## The spec" heading.
var specBlock = regexp.MustCompile("(?ms)^## The spec\n.*?^```toml\n(.*?)^```")

// TestDocSpecParses: the spec that docs/figures.md shows, every key of
// a spec with a comment, is one that efaxx plot accepts, so that a reader
// who copies it starts from a spec that decodes.
func TestDocSpecParses(t *testing.T) {
	text, err := os.ReadFile("../docs/figures.md")
	if err != nil {
		t.Fatal(err)
	}
	m := specBlock.FindSubmatch(text)
	if m == nil {
		t.Fatal("docs/figures.md: no toml block under ## The spec")
	}
	if _, err := plots.ParseSpec("docs/figures.md (The spec)", m[1]); err != nil {
		t.Error(err)
	}
}
