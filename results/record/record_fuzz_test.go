package record_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"efaxx/results/record"
)

// FuzzDecodeRecord feeds Decode arbitrary lines, as a crashed or buggy
// runner can leave them. Decode must not panic, must return a record only
// of a known type, must agree with the plain encoding/json path (the fast
// path for samples may only ever be faster, never different), and what it
// returns must survive encoding and decoding again unchanged, so that
// ingest stores what the runner meant. Seeds are in
// testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		v, err := record.Decode(line)
		ref, refErr := record.DecodeJSON(line)
		if (err == nil) != (refErr == nil) || !reflect.DeepEqual(v, ref) {
			t.Fatalf("Decode(%q) = %#v, %v; encoding/json gives %#v, %v", line, v, err, ref, refErr)
		}
		if err != nil {
			if v != nil {
				t.Fatalf("Decode(%q) = %#v with error %v, want nil with an error", line, v, err)
			}
			return
		}
		switch v.(type) {
		case *record.Rank, *record.Sample, *record.End:
		default:
			t.Fatalf("Decode(%q) = %T, want *Rank, *Sample or *End", line, v)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(%#v): %v", v, err)
		}
		again, err := record.Decode(b)
		if err != nil {
			t.Fatalf("Decode(Marshal(Decode(%q))) = %v", line, err)
		}
		if !reflect.DeepEqual(again, v) {
			t.Fatalf("Decode(%q) = %#v, but decoding it re-encoded gives %#v", line, v, again)
		}
	})
}
