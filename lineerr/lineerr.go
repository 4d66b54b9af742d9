// Package lineerr is the one form of a problem at a line of a file, for
// every file efaxx reads: sweeps, figure specs, baselines, rank files and
// the output of external programs. It prints as "file:line: key: message",
// the form compilers use, so that editors jump to it.
package lineerr

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Error is one problem in a file, at a line and, in a file of keys, at a key.
type Error struct {
	File string // as the reader was given it; "" prints as "line N"
	Line int    // 1-based; 0 for the file as a whole (a missing key, a file cut short)
	Key  string // dotted key path, "params.sizes"; "" where the problem is not at a key
	Err  error
}

// Error returns the error as "file:line: key: message", leaving out the
// line when it is 0 and the key when it is empty.
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File == "":
		fmt.Fprintf(&b, "line %d", e.Line)
	case e.Line == 0:
		b.WriteString(e.File)
	default:
		fmt.Fprintf(&b, "%s:%d", e.File, e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in one file, or several.
type Errors []*Error

// Error returns the errors one per line.
func (l Errors) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the errors of the list, so that errors.Is and errors.As
// look into each of them.
func (l Errors) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Sort puts the errors in line order, those about the whole file (line 0)
// last; errors at one line keep their order.
func (l Errors) Sort() {
	line := func(e *Error) int {
		if e.Line == 0 {
			return math.MaxInt
		}
		return e.Line
	}
	slices.SortStableFunc(l, func(a, b *Error) int { return cmp.Compare(line(a), line(b)) })
}

// Err returns l, or nil when it is empty.
func (l Errors) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// marked is an error whose text is written out in full but which still
// matches a sentinel: "want integer, got string" is a wrong type.
type marked struct {
	kind error
	err  error
}

func (e *marked) Error() string   { return e.err.Error() }
func (e *marked) Unwrap() []error { return []error{e.kind, e.err} }

// Mark formats an error that matches kind under errors.Is without
// repeating kind's text. Errors wrapped with %w in format still match too.
func Mark(kind error, format string, args ...any) error {
	return &marked{kind: kind, err: fmt.Errorf(format, args...)}
}
