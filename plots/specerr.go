package plots

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for what is wrong with a figure spec; every SpecError matches
// one of them under errors.Is.
var (
	ErrSpecSyntax = errors.New("syntax error")
	ErrUnknownKey = errors.New("unknown key")
	ErrMissingKey = errors.New("missing required key")
	ErrBadValue   = errors.New("invalid value")
)

// SpecError is one problem in a figure spec, at a key. It prints as
// "file:line: key: message"; the line is left out when it is not known
// (a missing key) and the key for a syntax error.
type SpecError struct {
	File string
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key path, "panel.nbi.runs.sweep"
	Err  error
}

// Error returns the error as "file:line: key: message".
func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *SpecError) Unwrap() error { return e.Err }

// SpecErrors is every problem found in one spec, in line order.
type SpecErrors []*SpecError

// Error returns the errors one per line.
func (l SpecErrors) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the errors of the list, for errors.Is and errors.As.
func (l SpecErrors) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// badValue returns an ErrBadValue with a message.
func badValue(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadValue, fmt.Sprintf(format, args...))
}
