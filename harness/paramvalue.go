package harness

import (
	"fmt"
	"strconv"
)

// ParamValue reads text, a parameter's value as a user types it on the
// command line (efaxx runs --param chunk=1MiB), into the form runs store
// it in (Point.Params): sizes in bytes, durations as "60s", integers as
// numbers. A benchmark param is read and checked as a sweep file's value
// is. A name that is not a param of the table, such as a parameter of an
// imported run, is read as an integer or a number when it is one, and is
// kept as text otherwise.
func ParamValue(name, text string) (any, error) {
	var raw any = text
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		raw = n
	}
	for _, p := range params {
		if p.name != name || p.inner {
			continue
		}
		v, err := p.read(raw)
		if err != nil {
			return nil, fmt.Errorf("param %s=%s: %w", name, text, err)
		}
		return jsonOf(v), nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && raw == any(text) {
		return f, nil
	}
	return raw, nil
}
