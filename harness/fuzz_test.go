package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"efaxx/harness"
	"efaxx/lineerr"
)

// FuzzParseSweep checks that Parse never panics, that it answers the same
// bytes the same way, and that every sweep it accepts expands to at least
// one well-formed point and has well-formed expectations. Seeds: testdata/expand/*.toml and
// testdata/fuzz/FuzzParseSweep.
func FuzzParseSweep(f *testing.F) {
	inputs, err := filepath.Glob("testdata/expand/*.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := harness.Parse("f.toml", data)
		again, errAgain := harness.Parse("f.toml", data)
		if errText(err) != errText(errAgain) {
			t.Fatalf("Parse is not deterministic:\n%v\nthen:\n%v", err, errAgain)
		}
		if err != nil {
			checkErrors(t, err)
			return
		}
		points := s.Points()
		if len(points) == 0 {
			t.Fatalf("accepted sweep expands to no points")
		}
		if !reflect.DeepEqual(points, again.Points()) {
			t.Fatalf("Points differ between two parses of the same bytes")
		}
		seen := map[string]int{} // hash → point: two points of one hash are one run twice
		for i, p := range points {
			checkPoint(t, i, p)
			if j, dup := seen[p.Hash]; dup {
				t.Fatalf("points %d and %d have one hash, %s: %s and %s", j, i, p.Hash, points[j].Label(), p.Label())
			}
			seen[p.Hash] = i
		}
		for i, e := range s.Expects {
			checkExpect(t, i, e)
		}
	})
}

// checkExpect checks what efaxx check relies on in an expectation.
func checkExpect(t *testing.T, i int, e harness.Expect) {
	if e.Line <= 0 || e.File != "f.toml" || e.Metric.Name == "" || e.Stat == "" || !(e.Lo <= e.Hi) || e.Bound == "" {
		t.Fatalf("malformed expect %d: %+v", i, e)
	}
}

// checkErrors checks that a rejection is a non-empty lineerr.Errors of errors
// that name the file.
func checkErrors(t *testing.T, err error) {
	var list lineerr.Errors
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("Parse error %#v is not a non-empty lineerr.Errors", err)
	}
	for _, e := range list {
		if e.Err == nil || !strings.HasPrefix(e.Error(), "f.toml") {
			t.Fatalf("malformed error %#v", e)
		}
	}
}

// checkPoint checks what a runner relies on in a point; an external
// point, what efaxx-runner's external mode relies on.
func checkPoint(t *testing.T, i int, p harness.Point) {
	if p.Index != i || len(p.Hash) != 16 || p.Label() == "" || (len(p.Sizes) == 0 && p.External == nil) {
		t.Fatalf("malformed point %d: %+v", i, p)
	}
	if p.External != nil {
		spec, err := p.ExternalSpec("/run")
		if err != nil || len(spec.Argv) == 0 || spec.Argv[0] == "" || spec.Parser == "" {
			t.Fatalf("point %d: ExternalSpec = %+v, %v", i, spec, err)
		}
		return
	}
	if args := p.RunnerArgs(); len(args)%2 != 0 || args[0] != "--benchmark" || args[1] != p.Benchmark {
		t.Fatalf("point %d: RunnerArgs() = %q", i, args)
	}
}
