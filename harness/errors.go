package harness

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for branching on what is wrong with a sweep file. Every error that
// Parse reports matches one of them under errors.Is.
var (
	ErrSyntax     = errors.New("syntax error")
	ErrUnknownKey = errors.New("unknown key")
	ErrMissingKey = errors.New("missing required key")
	ErrType       = errors.New("wrong type")
	ErrValue      = errors.New("invalid value")
	ErrSize       = errors.New("invalid size")
	ErrEmptyList  = errors.New("empty list")
	ErrDuplicate  = errors.New("duplicate value")
	ErrTooLarge   = errors.New("sweep too large")
)

// SweepError is one problem in a sweep file, at a key.
//
// It prints as "file:line: key: message", the form compilers use, so editors
// can jump to it. The line is left out when it is zero and the key when it is
// empty.
type SweepError struct {
	File string // the file name given to Parse or Load; "" prints as "line N"
	Line int    // 1-based line of the key; 0 when the key is absent (a missing key)
	Key  string // dotted key path, such as "params.sizes"; "" for syntax errors
	Err  error
}

// Error returns the error as "file:line: key: message".
func (e *SweepError) Error() string {
	var b strings.Builder
	b.WriteString(e.where())
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// where returns the "file:line" prefix of the message.
func (e *SweepError) where() string {
	switch {
	case e.File == "":
		return fmt.Sprintf("line %d", e.Line)
	case e.Line == 0:
		return e.File
	default:
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
}

// Unwrap returns the underlying error.
func (e *SweepError) Unwrap() error { return e.Err }

// ErrorList is every problem found in one sweep file, in line order. Parse and
// Load return a non-empty ErrorList when a file is not a valid sweep.
type ErrorList []*SweepError

// Error returns the errors one per line.
func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the errors of the list, so errors.Is and errors.As look
// into each of them.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// markedError is an error whose text is written out in full but which still
// matches a sentinel: "want integer, got string" is an ErrType.
type markedError struct {
	kind error
	err  error
}

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.kind, e.err} }

// mark formats an error that matches kind under errors.Is without repeating
// kind's text. Errors wrapped with %w in format still match too.
func mark(kind error, format string, args ...any) error {
	return &markedError{kind: kind, err: fmt.Errorf(format, args...)}
}
