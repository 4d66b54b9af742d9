package plots

import (
	"fmt"

	"efaxx/tomldoc"
)

// Sentinels for what is wrong with a figure spec; every error of ParseSpec
// is a lineerr.Error that matches one of them. They are tomldoc's, which
// sweeps share.
var (
	ErrSpecSyntax = tomldoc.ErrSyntax
	ErrUnknownKey = tomldoc.ErrUnknownKey
	ErrMissingKey = tomldoc.ErrMissingKey
	ErrType       = tomldoc.ErrType
	ErrBadValue   = tomldoc.ErrValue
)

// badValue returns an ErrBadValue with a message.
func badValue(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadValue, fmt.Sprintf(format, args...))
}
