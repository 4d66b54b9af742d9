package harness

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"efaxx/benchmarks"
	"efaxx/bytesize"
	"efaxx/lineerr"
	"efaxx/slurm"
	"efaxx/tomldoc"
)

// Resolved values have one Go type per kind of param: string, int,
// time.Duration, uint64 for a size in bytes, and []uint64 for the sizes of a
// point. The functions below read them from TOML and write them out.

// reader reads one TOML value into its resolved Go value and checks it.
type reader func(raw any) (any, error)

// readString reads a string that check accepts. A string longer than one
// argument takes (checkArg), or with a line break or another control
// character, is refused first: it becomes an argument in a job script,
// where no quoting can carry a control character.
func readString(check func(string) error) reader {
	return func(raw any) (any, error) {
		s, ok := raw.(string)
		if !ok {
			return nil, tomldoc.TypeError("string", raw)
		}
		if err := checkArg("value", len(s)); err != nil {
			return nil, err
		}
		if err := slurm.CheckValue("value", s); err != nil {
			return nil, lineerr.Mark(ErrValue, "%v", err)
		}
		if err := check(s); err != nil {
			return nil, err
		}
		return s, nil
	}
}

// oneOf accepts the strings in values, and names what it checks in errors.
func oneOf(what string, values ...string) func(string) error {
	return func(s string) error {
		for _, v := range values {
			if s == v {
				return nil
			}
		}
		return lineerr.Mark(ErrValue, "unknown %s %q%s; known: %s", what, s, tomldoc.DidYouMean(s, values), strings.Join(values, ", "))
	}
}

// noMax is the upper bound of integers that have none.
const noMax = math.MaxInt64

// readInt reads an integer in lo..hi.
func readInt(lo, hi int64) reader {
	return func(raw any) (any, error) {
		n, ok := raw.(int64)
		if !ok {
			return nil, tomldoc.TypeError("integer", raw)
		}
		switch {
		case n >= lo && n <= hi:
			return int(n), nil
		case hi == noMax:
			return nil, lineerr.Mark(ErrValue, "%d is out of range: want at least %d", n, lo)
		}
		return nil, lineerr.Mark(ErrValue, "%d is out of range: want %d..%d", n, lo, hi)
	}
}

// readDuration reads a duration string, as time.ParseDuration writes them,
// of more than zero and at most hi.
func readDuration(hi time.Duration) reader {
	return func(raw any) (any, error) {
		s, ok := raw.(string)
		if !ok {
			return nil, tomldoc.TypeError(`duration (a string like "60s")`, raw)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, lineerr.Mark(ErrValue, "duration %q: want a number and a unit (ns, us, ms, s, m, h), like \"60s\"", s)
		}
		if d <= 0 || d > hi {
			return nil, lineerr.Mark(ErrValue, "duration %q is out of range: want more than 0s and at most %s", s, formatDuration(hi))
		}
		return d, nil
	}
}

// readDurationOff reads a duration of at most hi, or "0s": off.
func readDurationOff(hi time.Duration) reader {
	return func(raw any) (any, error) {
		s, ok := raw.(string)
		if !ok {
			return nil, tomldoc.TypeError(`duration (a string like "2s")`, raw)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, lineerr.Mark(ErrValue, "duration %q: want a number and a unit (ns, us, ms, s, m, h), like \"2s\", or \"0s\" (off)", s)
		}
		if d < 0 || d > hi {
			return nil, lineerr.Mark(ErrValue, "duration %q is out of range: want 0s (off) up to %s", s, formatDuration(hi))
		}
		return d, nil
	}
}

// readSize reads a size: a string that bytesize.Parse accepts, or an integer
// count of bytes, up to benchmarks.MaxSize.
func readSize(raw any) (any, error) {
	var n uint64
	var err error
	switch v := raw.(type) {
	case string:
		n, err = bytesize.Parse(v)
	case int64:
		n, err = bytesize.FromInt(v)
	default:
		return nil, tomldoc.TypeError(`size (like "4KiB" or 4096)`, raw)
	}
	if err != nil {
		return nil, err
	}
	return n, checkMaxSize(n)
}

// checkMaxSize refuses a size past what the runner can allocate.
func checkMaxSize(n uint64) error {
	if n > benchmarks.MaxSize {
		return lineerr.Mark(ErrSize, "size %s is out of range: want at most %s", bytesize.Format(n), bytesize.Format(benchmarks.MaxSize))
	}
	return nil
}

// formatDuration writes d in whole hours when it is a whole number of them,
// else in the largest of s, ms, us and ns that is exact: "60s", "1500ms",
// "24h". Each duration has one spelling, so it can go into hashes, and
// time.ParseDuration reads every one back.
func formatDuration(d time.Duration) string {
	if d != 0 && d%time.Hour == 0 {
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	units := []struct {
		name string
		d    time.Duration
	}{{"s", time.Second}, {"ms", time.Millisecond}, {"us", time.Microsecond}}
	for _, u := range units {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// textOf writes a resolved value for people: labels and messages.
func textOf(v any) string {
	switch v := v.(type) {
	case uint64:
		return bytesize.Format(v)
	case []uint64:
		return joinSizes(v, bytesize.Format)
	case time.Duration:
		return formatDuration(v)
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

// argOf writes a resolved value as efaxx-runner reads it: sizes in bytes.
func argOf(v any) string {
	switch v := v.(type) {
	case uint64:
		return strconv.FormatUint(v, 10)
	case []uint64:
		return joinSizes(v, func(n uint64) string { return strconv.FormatUint(n, 10) })
	case time.Duration:
		return formatDuration(v)
	}
	return fmt.Sprint(v)
}

// jsonOf returns a resolved value as it is stored and hashed.
func jsonOf(v any) any {
	if d, ok := v.(time.Duration); ok {
		return formatDuration(d)
	}
	return v
}

// joinSizes writes sizes with format, comma-separated.
func joinSizes(sizes []uint64, format func(uint64) string) string {
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = format(n)
	}
	return strings.Join(parts, ",")
}
