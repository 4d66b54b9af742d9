package lineerr_test

import (
	"errors"
	"testing"

	"efaxx/lineerr"
)

func TestError(t *testing.T) {
	err := errors.New("bad")
	tests := []struct {
		in   *lineerr.Error
		want string
	}{
		{&lineerr.Error{File: "s.toml", Line: 7, Key: "params.sizes", Err: err}, "s.toml:7: params.sizes: bad"},
		{&lineerr.Error{File: "s.toml", Line: 7, Err: err}, "s.toml:7: bad"},
		{&lineerr.Error{File: "s.toml", Key: "name", Err: err}, "s.toml: name: bad"},
		{&lineerr.Error{Line: 2, Key: "name", Err: err}, "line 2: name: bad"},
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

func TestErrors(t *testing.T) {
	missing, unknown := errors.New("missing required key"), errors.New("unknown key")
	a := &lineerr.Error{File: "s.toml", Key: "name", Err: missing}
	b := &lineerr.Error{File: "s.toml", Line: 2, Key: "x", Err: unknown}
	c := &lineerr.Error{File: "s.toml", Line: 1, Key: "y", Err: lineerr.Mark(unknown, "not %s", "here")}
	list := lineerr.Errors{a, b, c}
	list.Sort()
	if got, want := list.Error(), "s.toml:1: y: not here\ns.toml:2: x: unknown key\ns.toml: name: missing required key"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(list, missing) || !errors.Is(list, unknown) {
		t.Errorf("errors.Is(list, ...) = false, want true for both sentinels")
	}
	if lineerr.Errors(nil).Err() != nil {
		t.Errorf("an empty list's Err is not nil")
	}
}
