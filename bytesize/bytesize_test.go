package bytesize_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"efaxx/bytesize"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"1", 1},
		{"4096", 4096},
		{"1B", 1},
		{"1000b", 1000},
		{"4K", 4 << 10},
		{"4k", 4 << 10},
		{"4KiB", 4 << 10},
		{"4kib", 4 << 10},
		{"4 KiB", 4 << 10},
		{" 4\tKiB ", 4 << 10},
		{"16M", 16 << 20},
		{"16MiB", 16 << 20},
		{"2G", 2 << 30},
		{"2GiB", 2 << 30},
		{"3T", 3 << 40},
		{"3TiB", 3 << 40},
		{"007", 7},
		{"16777215TiB", 16777215 << 40},
		{"18446744073709551615", math.MaxUint64},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := bytesize.Parse(tt.in)
			if got != tt.want || err != nil {
				t.Errorf("Parse(%q) = %d, %v, want %d, nil", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `size "": want a whole number of bytes with an optional unit, like 4096 or "4KiB"`},
		{"KiB", `size "KiB": want a whole number of bytes with an optional unit, like 4096 or "4KiB"`},
		{"+4", `size "+4": want a whole number of bytes with an optional unit, like 4096 or "4KiB"`},
		{"0", `size "0": zero bytes`},
		{"0KiB", `size "0KiB": zero bytes`},
		{"-4KiB", `size "-4KiB": negative`},
		{"4KB", `size "4KB": unit "KB" is ambiguous (1000 or 1024?): write "4KiB", or a number of bytes`},
		{"4 mb", `size "4 mb": unit "mb" is ambiguous (1000 or 1024?): write "4MiB", or a number of bytes`},
		{"1GB", `size "1GB": unit "GB" is ambiguous (1000 or 1024?): write "1GiB", or a number of bytes`},
		{"2tb", `size "2tb": unit "tb" is ambiguous (1000 or 1024?): write "2TiB", or a number of bytes`},
		{"4XB", `size "4XB": unknown unit "XB": want B, KiB, MiB, GiB or TiB`},
		{"4 KiB B", `size "4 KiB B": unknown unit "KiB B": want B, KiB, MiB, GiB or TiB`},
		{"1e6", `size "1e6": unknown unit "e6": want B, KiB, MiB, GiB or TiB`},
		{"1.5MiB", `size "1.5MiB": fractions are not allowed: write "1536KiB"`},
		{".5K", `size ".5K": fractions are not allowed: write "512B"`},
		{"1.5", `size "1.5": fractions are not allowed`},
		{"0.0KiB", `size "0.0KiB": fractions are not allowed`},
		{"1.5KB", `size "1.5KB": fractions are not allowed`},
		{"18446744073709551616", `size "18446744073709551616": larger than 2^64-1 bytes`},
		{"16777216TiB", `size "16777216TiB": larger than 2^64-1 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := bytesize.Parse(tt.in)
			if got != 0 || fmt.Sprint(err) != tt.want {
				t.Errorf("Parse(%q) = %d, %v, want 0, %s", tt.in, got, err, tt.want)
			}
			if !errors.Is(err, bytesize.ErrSize) {
				t.Errorf("Parse(%q) error = %v, want one that is ErrSize", tt.in, err)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   uint64
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1000, "1000B"},
		{1023, "1023B"},
		{1024, "1KiB"},
		{4096, "4KiB"},
		{1536, "1536B"},
		{1536 << 10, "1536KiB"},
		{16 << 20, "16MiB"},
		{1 << 30, "1GiB"},
		{1 << 40, "1TiB"},
		{1 << 50, "1024TiB"},
		{math.MaxUint64, "18446744073709551615B"},
	}
	for _, tt := range tests {
		if got := bytesize.Format(tt.in); got != tt.want {
			t.Errorf("Format(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSizeRoundTrip(t *testing.T) {
	var sizes []uint64
	for shift := 0; shift < 64; shift++ {
		n := uint64(1) << shift
		sizes = append(sizes, n, n-1, n+1, 3*n, 1000*n)
	}
	for _, n := range sizes {
		if n == 0 {
			continue
		}
		text := bytesize.Format(n)
		got, err := bytesize.Parse(text)
		if got != n || err != nil {
			t.Errorf("Parse(Format(%d) = %q) = %d, %v, want %d, nil", n, text, got, err, n)
		}
	}
}

// FuzzParse checks that Parse never panics, that what it accepts is at
// least one byte and survives Format, and that its errors are ErrSize.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		n, err := bytesize.Parse(s)
		if err != nil {
			if n != 0 || !errors.Is(err, bytesize.ErrSize) {
				t.Fatalf("Parse(%q) = %d, %v; want 0 and an ErrSize", s, n, err)
			}
			return
		}
		text := bytesize.Format(n)
		if back, err := bytesize.Parse(text); n == 0 || back != n || err != nil {
			t.Fatalf("Parse(%q) = %d; Parse(Format = %q) = %d, %v", s, n, text, back, err)
		}
	})
}
