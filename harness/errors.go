package harness

import (
	"errors"

	"efaxx/bytesize"
	"efaxx/tomldoc"
)

// Sentinels for branching on what is wrong with a sweep file. Every error that
// Parse reports is a lineerr.Error ("file:line: key: message") that matches
// one of them under errors.Is. The first five are tomldoc's, which figure
// specs share; ErrSize is bytesize's.
var (
	ErrSyntax     = tomldoc.ErrSyntax
	ErrUnknownKey = tomldoc.ErrUnknownKey
	ErrMissingKey = tomldoc.ErrMissingKey
	ErrType       = tomldoc.ErrType
	ErrValue      = tomldoc.ErrValue
	ErrSize       = bytesize.ErrSize
	ErrEmptyList  = errors.New("empty list")
	ErrDuplicate  = errors.New("duplicate value")
	ErrTooLarge   = errors.New("sweep too large")
)

// DidYouMean returns ` (did you mean "x"?)` for the candidate closest to
// word, or "" when none is close enough to be a likely typo: the sweep
// decoder's suggestion (tomldoc's), for the command line's messages too.
func DidYouMean(word string, candidates []string) string { return tomldoc.DidYouMean(word, candidates) }
