// Package bytesize is the one spelling of byte counts in efaxx's files:
// "4KiB", "4 k" and 4096 are the same size, in powers of 1024, in sweeps,
// figure specs, baselines and messages alike.
package bytesize

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"efaxx/lineerr"
)

// ErrSize is matched by every error of Parse and FromInt.
var ErrSize = errors.New("invalid size")

// sizeUnits are the units a size may carry, all powers of 1024, largest
// first. Names are matched without regard to case.
var sizeUnits = []struct {
	name  string
	short string
	bytes uint64
}{
	{"TiB", "T", 1 << 40},
	{"GiB", "G", 1 << 30},
	{"MiB", "M", 1 << 20},
	{"KiB", "K", 1 << 10},
	{"B", "B", 1},
}

// Parse parses a byte count: a whole number followed by an optional unit,
// B, K or KiB, M or MiB, G or GiB, T or TiB (powers of 1024, any case, with
// an optional space before the unit). "4KiB", "4 k" and "4096" are all 4096.
//
// KB, MB, GB and TB are rejected because readers disagree on whether they
// mean powers of 1000 or 1024. Zero, negative numbers, fractions and counts
// above 2^64-1 are rejected too. Errors match ErrSize.
func Parse(s string) (uint64, error) {
	num, unit := splitSize(strings.TrimSpace(s))
	if strings.HasPrefix(unit, ".") {
		return 0, fractionError(s, num, unit)
	}
	if num == "" {
		if strings.HasPrefix(unit, "-") {
			return 0, lineerr.Mark(ErrSize, "size %q: negative", s)
		}
		return 0, lineerr.Mark(ErrSize, "size %q: want a whole number of bytes with an optional unit, like 4096 or \"4KiB\"", s)
	}
	mult, err := unitBytes(s, num, strings.TrimSpace(unit))
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > math.MaxUint64/mult {
		return 0, lineerr.Mark(ErrSize, "size %q: larger than 2^64-1 bytes", s)
	}
	if n == 0 {
		return 0, lineerr.Mark(ErrSize, "size %q: zero bytes", s)
	}
	return n * mult, nil
}

// splitSize splits s into its leading decimal digits and the rest.
func splitSize(s string) (num, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// unitBytes returns the multiplier of unit, which followed num in size s.
func unitBytes(s, num, unit string) (uint64, error) {
	if unit == "" {
		return 1, nil
	}
	for _, u := range sizeUnits {
		if strings.EqualFold(unit, u.name) || strings.EqualFold(unit, u.short) {
			return u.bytes, nil
		}
	}
	switch strings.ToUpper(unit) {
	case "KB", "MB", "GB", "TB":
		binary := strings.ToUpper(unit[:1]) + "iB"
		return 0, lineerr.Mark(ErrSize, "size %q: unit %q is ambiguous (1000 or 1024?): write %q, or a number of bytes", s, unit, num+binary)
	}
	return 0, lineerr.Mark(ErrSize, "size %q: unknown unit %q: want B, KiB, MiB, GiB or TiB", s, unit)
}

// fractionError explains that sizes are whole numbers, and when the fraction
// is a whole number of bytes, spells the size in a smaller unit.
func fractionError(s, num, rest string) error {
	digits, unit := splitSize(rest[1:])
	r, ok := new(big.Rat).SetString(num + "." + digits)
	mult, err := unitBytes(s, num, strings.TrimSpace(unit))
	if !ok || err != nil {
		return lineerr.Mark(ErrSize, "size %q: fractions are not allowed", s)
	}
	r.Mul(r, new(big.Rat).SetUint64(mult))
	if !r.IsInt() || !r.Num().IsUint64() || r.Sign() == 0 {
		return lineerr.Mark(ErrSize, "size %q: fractions are not allowed", s)
	}
	return lineerr.Mark(ErrSize, "size %q: fractions are not allowed: write %q", s, Format(r.Num().Uint64()))
}

// Format returns n in the shortest exact form that Parse reads back:
// the largest unit that divides n, so 4096 is "4KiB", 16777216 is "16MiB" and
// 1000 is "1000B".
func Format(n uint64) string {
	for _, u := range sizeUnits {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatUint(n/u.bytes, 10) + u.name
		}
	}
	return "0B"
}

// FromInt checks a size written as an integer, a count of bytes.
func FromInt(n int64) (uint64, error) {
	switch {
	case n < 0:
		return 0, lineerr.Mark(ErrSize, "size %d: negative", n)
	case n == 0:
		return 0, lineerr.Mark(ErrSize, "size 0: zero bytes")
	}
	return uint64(n), nil
}
