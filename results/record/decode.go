package record

import (
	"encoding/json"
	"fmt"
	"math"
)

// Decode parses one NDJSON line into a *Rank, *Sample or *End.
//
// Sample lines are nearly every line ingest reads, so they take a fast path:
// one pass over the bytes that accepts the form efaxx-runner writes (known
// keys, each once; integers; strings of printable ASCII without escapes).
// Any other line, including a sample written some other way, goes through
// encoding/json, whose result the fast path must match exactly; the fuzz
// test checks that it does.
func Decode(line []byte) (any, error) {
	var s Sample
	if decodeSample(line, &s) {
		return &s, nil
	}
	return decodeJSON(line)
}

// DecodeSample fills s when line is a sample record in the form
// efaxx-runner writes, and reports whether it did. It allocates nothing
// but the rails lists, for ingest's hot loop; when it reports false,
// Decode reads the line.
func DecodeSample(line []byte, s *Sample) bool {
	*s = Sample{}
	return decodeSample(line, s)
}

// decodeJSON is Decode through encoding/json, for the lines the fast path
// leaves: the rank and end records, two per file, and any sample written
// in another form. When the line starts with its type, as the runner
// writes it, the line is decoded once, into the record of that type; the
// decoded Type must then agree, since a later duplicate "type" key wins.
// Otherwise the type is read first and the line decoded a second time.
func decodeJSON(line []byte) (any, error) {
	if v := newRecord(peekType(line)); v != nil {
		err := json.Unmarshal(line, v)
		if err == nil && typeOf(v) == peekType(line) {
			return v, nil
		}
	}
	return decodeTwice(line)
}

// decodeTwice reads the type of line, then decodes line into a record of
// that type: the reference for every other path.
func decodeTwice(line []byte) (any, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, err
	}
	v := newRecord(head.Type)
	if v == nil {
		return nil, fmt.Errorf("unknown record type %q", head.Type)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return nil, err
	}
	return v, nil
}

// newRecord returns a new record of the given type, or nil for another.
func newRecord(typ string) any {
	switch typ {
	case TypeRank:
		return &Rank{}
	case TypeSample:
		return &Sample{}
	case TypeEnd:
		return &End{}
	}
	return nil
}

// typeOf returns the Type field of a record from newRecord.
func typeOf(v any) string {
	switch r := v.(type) {
	case *Rank:
		return r.Type
	case *Sample:
		return r.Type
	case *End:
		return r.Type
	}
	return ""
}

// peekType returns the value of the first key of line when that key is
// "type" and the value a plain string, or "".
func peekType(line []byte) string {
	sc := scan{b: line}
	if !sc.take('{') {
		return ""
	}
	if key, ok := sc.str(); !ok || string(key) != "type" || !sc.take(':') {
		return ""
	}
	v, _ := sc.str()
	return string(v)
}

// sampleKeys are the keys of a sample line, in the bit order of scan.seen.
var sampleKeys = [...]string{"type", "rank", "peer", "role", "size", "bytes_sent",
	"bytes_recv", "iterations", "elapsed_ns", "lat_ns", "variant", "peers", "strategy",
	"rails", "rail_bytes", "link_bps", "requeued"}

// latKeys are the keys of a sample's lat_ns object.
var latKeys = [...]string{"min", "p50", "p99", "max"}

// decodeSample fills s from line when line is a sample record in the plain
// form, and reports whether it did. false means "not decided here", not
// "invalid": the caller then uses encoding/json.
func decodeSample(line []byte, s *Sample) bool {
	sc := scan{b: line}
	if !sc.take('{') {
		return false
	}
	isSample := false
	for first := true; ; first = false {
		key, done, ok := sc.member(first)
		if done {
			return isSample && sc.end()
		}
		i := keyIndex(key, sampleKeys[:])
		if !ok || i < 0 || !sc.once(i) || !sc.sampleField(i, s) {
			return false
		}
		isSample = isSample || i == 0
	}
}

// sampleField reads the value of sample key i into s.
func (sc *scan) sampleField(i int, s *Sample) bool {
	switch i {
	case 0:
		v, ok := sc.str()
		s.Type = TypeSample
		return ok && string(v) == TypeSample
	case 1:
		return sc.int(&s.Rank)
	case 2:
		return sc.int(&s.Peer)
	case 3, 10, 11, 12:
		v, ok := sc.str()
		*sampleString(s, i) = intern(v)
		return ok
	case 9:
		return sc.lat(&s.Lat)
	case 13:
		return sc.ints(&s.Rails)
	case 14:
		return sc.uints(&s.RailBytes)
	}
	return sc.uint(sampleUint(s, i))
}

// sampleString returns the field of s that sample key i names, for the
// keys whose values are strings.
func sampleString(s *Sample, i int) *string {
	switch i {
	case 3:
		return &s.Role
	case 10:
		return &s.Variant
	case 11:
		return &s.Peers
	}
	return &s.Strategy
}

// ints reads a JSON array of integers into v; [] gives an empty slice, as
// encoding/json does.
func (sc *scan) ints(v *[]int) bool {
	out := []int{}
	ok := sc.array(func() bool {
		var n int
		if !sc.int(&n) {
			return false
		}
		out = append(out, n)
		return true
	})
	*v = out
	return ok
}

// uints reads a JSON array of unsigned integers into v.
func (sc *scan) uints(v *[]uint64) bool {
	out := []uint64{}
	ok := sc.array(func() bool {
		var n uint64
		if !sc.uint(&n) {
			return false
		}
		out = append(out, n)
		return true
	})
	*v = out
	return ok
}

// array reads [item, ...], calling item for each.
func (sc *scan) array(item func() bool) bool {
	if !sc.take('[') {
		return false
	}
	if sc.take(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if sc.take(']') {
			return true
		}
		if !sc.take(',') {
			return false
		}
	}
}

// known are the strings the runner writes in samples (roles, strategies,
// peers of an all-to-all), handed out without allocating.
var known = [...]string{"", "initiator", "target", "both", "single", "split", "round-robin",
	"per-op", "adaptive", "all"}

// intern returns v as a string, one of known when it is one.
func intern(v []byte) string {
	for _, k := range known {
		if string(v) == k {
			return k
		}
	}
	return string(v)
}

// sampleUint returns the field of s that sample key i names, for the keys
// whose values are unsigned.
func sampleUint(s *Sample, i int) *uint64 {
	switch i {
	case 4:
		return &s.Size
	case 5:
		return &s.BytesSent
	case 6:
		return &s.BytesRecv
	case 7:
		return &s.Iterations
	case 15:
		return &s.LinkBps
	case 16:
		return &s.Requeued
	}
	return &s.ElapsedNs
}

// lat reads a lat_ns object into l.
func (sc *scan) lat(l *Lat) bool {
	if !sc.take('{') {
		return false
	}
	var seen uint
	for first := true; ; first = false {
		key, done, ok := sc.member(first)
		if done {
			return true
		}
		i := keyIndex(key, latKeys[:])
		if !ok || i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		if !sc.uint([...]*uint64{&l.Min, &l.P50, &l.P99, &l.Max}[i]) {
			return false
		}
	}
}

// keyIndex returns the index of key in keys, or -1.
func keyIndex(key []byte, keys []string) int {
	for i, k := range keys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

// scan reads the plain subset of JSON that decodeSample accepts. Each
// method reports false on anything outside it.
type scan struct {
	b    []byte
	i    int
	seen uint // bit i set: top-level key i was read
}

// once marks top-level key i as read, and reports false when it was read
// before: encoding/json keeps the last of duplicate keys, and such lines
// are left to it.
func (sc *scan) once(i int) bool {
	if sc.seen&(1<<i) != 0 {
		return false
	}
	sc.seen |= 1 << i
	return true
}

// space skips JSON whitespace.
func (sc *scan) space() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// take skips whitespace and then c, if c is next.
func (sc *scan) take(c byte) bool {
	sc.space()
	if sc.i < len(sc.b) && sc.b[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (sc *scan) end() bool {
	sc.space()
	return sc.i == len(sc.b)
}

// member reads the next member of an object up to its value: the comma
// before it unless first, the key and the colon. done reports the end of
// the object instead; ok is false on anything else.
func (sc *scan) member(first bool) (key []byte, done, ok bool) {
	if sc.take('}') {
		return nil, true, true
	}
	if !first && !sc.take(',') {
		return nil, false, false
	}
	key, ok = sc.str()
	return key, false, ok && sc.take(':')
}

// str reads a string of printable ASCII without escapes, and returns its
// bytes without the quotes.
func (sc *scan) str() ([]byte, bool) {
	if !sc.take('"') {
		return nil, false
	}
	start := sc.i
	for sc.i < len(sc.b) {
		c := sc.b[sc.i]
		switch {
		case c == '"':
			sc.i++
			return sc.b[start : sc.i-1], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
		sc.i++
	}
	return nil, false
}

// digits reads a JSON integer without sign, fraction or exponent, which
// fits in 63 bits.
func (sc *scan) digits() (uint64, bool) {
	sc.space()
	start := sc.i
	var n uint64
	for sc.i < len(sc.b) && sc.b[sc.i] >= '0' && sc.b[sc.i] <= '9' {
		d := uint64(sc.b[sc.i] - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
		sc.i++
	}
	switch {
	case sc.i == start, sc.b[start] == '0' && sc.i-start > 1:
		return 0, false // no digits, or a leading zero: not JSON
	case sc.i < len(sc.b) && (sc.b[sc.i] == '.' || sc.b[sc.i] == 'e' || sc.b[sc.i] == 'E'):
		return 0, false // a fraction or an exponent
	}
	return n, true
}

// uint reads an unsigned integer into v.
func (sc *scan) uint(v *uint64) bool {
	n, ok := sc.digits()
	*v = n
	return ok
}

// int reads a signed integer into v.
func (sc *scan) int(v *int) bool {
	neg := sc.take('-')
	if neg && sc.i < len(sc.b) && (sc.b[sc.i] < '0' || sc.b[sc.i] > '9') {
		return false // JSON allows no space after the minus
	}
	n, ok := sc.digits()
	if n > math.MaxInt || !ok {
		return false
	}
	*v = int(n)
	if neg {
		*v = -int(n)
	}
	return true
}
