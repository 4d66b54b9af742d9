package record_test

import (
	"reflect"
	"testing"

	"efaxx/results/record"
)

// sampleLine is a sample as efaxx-runner writes it.
const sampleLine = `{"type":"sample","rank":3,"peer":-1,"role":"target","size":65536,"bytes_sent":0,` +
	`"bytes_recv":65536,"iterations":100,"elapsed_ns":1234567,"lat_ns":{"min":9000,"p50":10000,"p99":50000,"max":90000}}`

func TestDecode_Sample(t *testing.T) {
	want := &record.Sample{Type: "sample", Rank: 3, Peer: -1, Role: "target", Size: 65536,
		BytesRecv: 65536, Iterations: 100, ElapsedNs: 1234567,
		Lat: record.Lat{Min: 9000, P50: 10000, P99: 50000, Max: 90000}}
	got, err := record.Decode([]byte(sampleLine))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(sample) = %#v, %v; want %#v", got, err, want)
	}
}

// TestDecode_MatchesJSON checks lines near the edge of the fast path: each
// must decode as encoding/json decodes it, value and error alike.
func TestDecode_MatchesJSON(t *testing.T) {
	tests := []struct {
		name, line string
		wantErr    bool
	}{
		{"spaces", "  { \"type\" : \"sample\" , \"rank\" : 1 }\r\n", false},
		{"keys reordered", `{"lat_ns":{"max":4,"min":1},"size":8,"type":"sample"}`, false},
		{"duplicate key: the last wins", `{"type":"sample","rank":1,"rank":2}`, false},
		{"key in another case", `{"type":"sample","Rank":7}`, false},
		{"unknown key", `{"type":"sample","rail":2}`, false},
		{"escaped role", `{"type":"sample","role":"tar\u0067et"}`, false},
		{"negative size", `{"type":"sample","size":-1}`, true},
		{"fraction", `{"type":"sample","size":1.5}`, true},
		{"exponent", `{"type":"sample","size":1e3}`, true},
		{"leading zero", `{"type":"sample","size":01}`, true},
		{"above int64", `{"type":"sample","size":18446744073709551615}`, false},
		{"above uint64", `{"type":"sample","size":18446744073709551616}`, true},
		{"minus zero rank", `{"type":"sample","rank":-0}`, false},
		{"space after minus", `{"type":"sample","rank":- 1}`, true},
		{"null peer", `{"type":"sample","peer":null}`, false},
		{"cut short", sampleLine[:len(sampleLine)/2], true},
		{"trailing garbage", sampleLine + "x", true},
		{"two objects", sampleLine + sampleLine, true},
		{"no type", `{"rank":1}`, true},
		{"end record", `{"type":"end","rank":0,"status":"ok","elapsed_ns":5}`, false},
		{"type not a string", `{"type":1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := record.Decode([]byte(tt.line))
			ref, refErr := record.DecodeJSON([]byte(tt.line))
			if (err != nil) != tt.wantErr {
				t.Errorf("Decode(%q) error = %v, want error %v", tt.line, err, tt.wantErr)
			}
			if (err == nil) != (refErr == nil) || !reflect.DeepEqual(got, ref) {
				t.Errorf("Decode(%q) = %#v, %v; encoding/json gives %#v, %v", tt.line, got, err, ref, refErr)
			}
		})
	}
}

// BenchmarkDecode compares the fast path with encoding/json on a sample.
func BenchmarkDecode(b *testing.B) {
	line := []byte(sampleLine)
	for _, bm := range []struct {
		name   string
		decode func([]byte) (any, error)
	}{{"fast", record.Decode}, {"encoding-json", record.DecodeJSON}} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := bm.decode(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecode_PeekedType checks the one-pass path for lines that start with
// their type, against decoding twice.
func TestDecode_PeekedType(t *testing.T) {
	for _, line := range []string{
		`{"type":"rank","rank":2,"host":"n1","mr_mode":["FI_MR_LOCAL"]}`,
		`{"type":"end","rank":1,"status":"failed","error":"verify: byte 7"}`,
		`{"type":"rank","rank":2,"type":"end"}`,
		`{"type":"end","rank":"x"}`,
		`{"type":"rank","Type":"sample"}`,
		`{"type":"sample","size":1.5,"type":"rank"}`,
	} {
		got, err := record.Decode([]byte(line))
		ref, refErr := record.DecodeJSON([]byte(line))
		if (err == nil) != (refErr == nil) || !reflect.DeepEqual(got, ref) {
			t.Errorf("Decode(%q) = %#v, %v; decoding twice gives %#v, %v", line, got, err, ref, refErr)
		}
	}
}

// TestDecodeSample checks the allocation-free path: it agrees with Decode
// on a sample, declines any other record, and allocates nothing.
func TestDecodeSample(t *testing.T) {
	var s record.Sample
	want, _ := record.Decode([]byte(sampleLine))
	if !record.DecodeSample([]byte(sampleLine), &s) || !reflect.DeepEqual(&s, want) {
		t.Errorf("DecodeSample(sample) = %+v, want %+v", s, want)
	}
	if record.DecodeSample([]byte(`{"type":"end","rank":0,"status":"ok"}`), &s) {
		t.Error("DecodeSample(end record) = true, want false")
	}
	line := []byte(sampleLine)
	if n := testing.AllocsPerRun(100, func() { record.DecodeSample(line, &s) }); n != 0 {
		t.Errorf("DecodeSample allocates %v times per line, want 0", n)
	}
}

// railLine is a multi-rail sample as efaxx-runner writes it since rails.
const railLine = `{"type":"sample","rank":0,"peer":1,"role":"initiator","size":1048576,"bytes_sent":1048576,` +
	`"bytes_recv":0,"iterations":20,"elapsed_ns":9000000,"lat_ns":{"min":1,"p50":2,"p99":3,"max":4},` +
	`"peers":"1","strategy":"split","rails":[0,1,2,3],"rail_bytes":[5242880,5242880,5242880,5242880],` +
	`"link_bps":400000000000,"requeued":7}`

// TestDecode_Rails checks the fast path on the multi-rail fields, and on
// their edges, against encoding/json.
func TestDecode_Rails(t *testing.T) {
	var s record.Sample
	if !record.DecodeSample([]byte(railLine), &s) || s.Strategy != "split" || len(s.Rails) != 4 ||
		s.RailBytes[3] != 5242880 || s.LinkBps != 400e9 || s.Requeued != 7 || s.Peers != "1" {
		t.Fatalf("DecodeSample(rail sample) = %+v", s)
	}
	for _, line := range []string{
		railLine,
		`{"type":"sample","rails":[],"rail_bytes":[]}`,
		`{"type":"sample","rails":[ 1 , -2 ],"variant":"copy-engine"}`,
		`{"type":"sample","rail_bytes":[-1]}`,
		`{"type":"sample","rails":[1,]}`,
		`{"type":"sample","rails":[1.5]}`,
		`{"type":"sample","rails":null}`,
		`{"type":"sample","rails":"0"}`,
	} {
		got, err := record.Decode([]byte(line))
		ref, refErr := record.DecodeJSON([]byte(line))
		if (err == nil) != (refErr == nil) || !reflect.DeepEqual(got, ref) {
			t.Errorf("Decode(%q) = %#v, %v; encoding/json gives %#v, %v", line, got, err, ref, refErr)
		}
	}
}
