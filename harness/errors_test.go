package harness_test

import (
	"errors"
	"testing"

	"efaxx/harness"
)

// errText returns err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSweepErrorError(t *testing.T) {
	err := errors.New("bad")
	tests := []struct {
		in   *harness.SweepError
		want string
	}{
		{&harness.SweepError{File: "s.toml", Line: 7, Key: "params.sizes", Err: err}, "s.toml:7: params.sizes: bad"},
		{&harness.SweepError{File: "s.toml", Line: 7, Err: err}, "s.toml:7: bad"},
		{&harness.SweepError{File: "s.toml", Key: "name", Err: err}, "s.toml: name: bad"},
		{&harness.SweepError{Line: 2, Key: "name", Err: err}, "line 2: name: bad"},
	}
	for _, tt := range tests {
		if got := tt.in.Error(); got != tt.want {
			t.Errorf("(%#v).Error() = %q, want %q", tt.in, got, tt.want)
		}
		if !errors.Is(tt.in, err) {
			t.Errorf("errors.Is(%v, %v) = false, want true", tt.in, err)
		}
	}
}

func TestErrorList(t *testing.T) {
	a := &harness.SweepError{File: "s.toml", Line: 1, Key: "name", Err: harness.ErrMissingKey}
	b := &harness.SweepError{File: "s.toml", Line: 2, Key: "x", Err: harness.ErrUnknownKey}
	list := harness.ErrorList{a, b}
	if got, want := list.Error(), "s.toml:1: name: missing required key\ns.toml:2: x: unknown key"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(list, harness.ErrUnknownKey) {
		t.Errorf("errors.Is(list, ErrUnknownKey) = false, want true")
	}
}
