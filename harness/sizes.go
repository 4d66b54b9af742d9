package harness

import (
	"strconv"
	"strings"

	"efaxx/bytesize"
	"efaxx/lineerr"
)

// defaultStep is the factor between sizes of a range written without " xN".
const defaultStep = 2

// maxSizes bounds the sizes of a point. They reach efaxx-runner (or an
// external program's {sizes}) as one argument, and Linux refuses to start
// a program with an argument past 128 KiB (MAX_ARG_STRLEN): 4096 sizes of
// 13 digits and a comma are 57 KiB.
const maxSizes = 4096

// isRange reports whether a sizes string is a range, "MIN..MAX" or
// "MIN..MAX xN", rather than one size.
func isRange(s string) bool { return strings.Contains(s, "..") }

// parseRange expands a range of sizes: MIN, MIN·N, MIN·N², … while at most
// MAX, then MAX itself when the steps did not land on it. N is 2 unless the
// range ends in " xN".
func parseRange(s string) ([]uint64, error) {
	minText, maxText, stepText, ok := splitRange(s)
	if !ok {
		return nil, lineerr.Mark(ErrValue, "range %q: want \"MIN..MAX\" or \"MIN..MAX xN\", like \"4KiB..16MiB x4\"", s)
	}
	lo, err := bytesize.Parse(minText)
	if err != nil {
		return nil, lineerr.Mark(ErrValue, "range %q: %w", s, err)
	}
	hi, err := bytesize.Parse(maxText)
	if err != nil {
		return nil, lineerr.Mark(ErrValue, "range %q: %w", s, err)
	}
	step, err := parseStep(stepText)
	if err != nil {
		return nil, lineerr.Mark(ErrValue, "range %q: %w", s, err)
	}
	if lo > hi {
		return nil, lineerr.Mark(ErrValue, "range %q: minimum is larger than maximum", s)
	}
	if err := checkMaxSize(hi); err != nil {
		return nil, lineerr.Mark(ErrValue, "range %q: %w", s, err)
	}
	return expandRange(lo, hi, step), nil
}

// splitRange cuts "MIN..MAX xN" into its parts; stepText is "" when the
// range has no step. No unit contains an x, so the last x starts the step.
func splitRange(s string) (minText, maxText, stepText string, ok bool) {
	minText, rest, _ := strings.Cut(s, "..")
	maxText = rest
	if i := strings.LastIndexAny(rest, "xX"); i >= 0 {
		maxText, stepText = rest[:i], rest[i+1:]
		if strings.TrimSpace(stepText) == "" {
			return "", "", "", false
		}
	}
	ok = !strings.Contains(rest, "..") && strings.TrimSpace(minText) != "" && strings.TrimSpace(maxText) != ""
	return minText, maxText, stepText, ok
}

// parseStep parses the N of " xN"; "" is the default step.
func parseStep(text string) (uint64, error) {
	if text == "" {
		return defaultStep, nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
	if err != nil || n < 2 {
		return 0, lineerr.Mark(ErrValue, "step \"x%s\": want a whole number of at least 2", strings.TrimSpace(text))
	}
	return n, nil
}

// expandRange lists lo, lo·step, … up to hi, and hi. It requires
// 1 <= lo <= hi and step >= 2.
func expandRange(lo, hi, step uint64) []uint64 {
	var sizes []uint64
	for n := lo; ; n *= step {
		sizes = append(sizes, n)
		// n > hi/step means n·step > hi, and it keeps n·step from overflowing.
		if n > hi/step {
			break
		}
	}
	if sizes[len(sizes)-1] != hi {
		sizes = append(sizes, hi)
	}
	return sizes
}
