//go:build cgo

package native

import (
	"fmt"
	"strings"
	"testing"
)

// badSlot is a slot the target's check must fail, and whether it may read it again.
type badSlot struct {
	name string
	slot []byte
	its  []uint64
	full bool
	torn bool // read again: a write landing as it was read can explain it
}

// TestCheckSlot holds the target's check of a slot that later writes may
// have overwritten (a writer with fewer slots than iterations in flight):
// each op may hold any of the iterations that can have landed there last,
// each stamp on its own, and nothing else. Only a stamp half one of theirs
// and half another's, as a write landing while it is read leaves it, is
// read again; a damaged one fails at once, before a later write hides it.
func TestCheckSlot(t *testing.T) {
	const it = 40
	for _, c := range []struct{ size, chunk uint64 }{{300001, 65536}, {65536, 65536}, {40, 40}, {200, 64}} {
		ops := (c.size + c.chunk - 1) / c.chunk
		// mixed holds op k as iteration it+1 wrote it for k < cut, it after.
		mixed := func(cut uint64) []byte {
			slot := stamped(c.size, c.chunk, it)
			later := stamped(c.size, c.chunk, it+1)
			copy(slot[:min(cut*c.chunk, c.size)], later)
			return slot
		}
		ok := []struct {
			name string
			slot []byte
			its  []uint64
		}{
			{"its own", stamped(c.size, c.chunk, it), []uint64{it}},
			{"its own, later ones possible", stamped(c.size, c.chunk, it), []uint64{it, it + 1, it + 2}},
			{"a later one's", stamped(c.size, c.chunk, it+2), []uint64{it, it + 1, it + 2}},
			{"a later one's first ops", mixed(ops / 2), []uint64{it, it + 1}},
		}
		for _, k := range ok {
			for _, full := range []bool{false, true} {
				if _, err := checkSlot(k.slot, c.chunk, k.its, full); err != nil {
					t.Errorf("size %d chunk %d, %s, iterations %v, full %v: %v", c.size, c.chunk, k.name, k.its, full, err)
				}
			}
		}
		torn := stamped(c.size, c.chunk, it)
		copy(torn[:4], stamped(c.size, c.chunk, it+1)[:4]) // half of op 0's first stamp
		damaged := stamped(c.size, c.chunk, it)
		damaged[c.size-1] ^= 0x5a // the last stamp, as the stamp hook damages it
		cut := stamped(c.size, c.chunk, it)
		copy(cut[c.size-8:], stamped(c.size, c.chunk, it-1)[c.size-8:]) // the last op cut short: its end an earlier one's
		base := stamped(c.size, c.chunk, it+1)
		base[c.size/3] ^= 0x5a // off the stamps in ops over 64 bytes
		bad := []badSlot{
			{"a later one's, none possible", stamped(c.size, c.chunk, it+1), []uint64{it}, false, false},
			{"one not possible", stamped(c.size, c.chunk, it+3), []uint64{it, it + 1, it + 2}, false, false},
			{"an earlier one's", stamped(c.size, c.chunk, it-1), []uint64{it, it + 1}, false, false},
			{"a later one's first ops, none possible", mixed(1), []uint64{it}, false, false},
			{"a stamp half written", torn, []uint64{it, it + 1}, false, true},
			{"a stamp damaged", damaged, []uint64{it, it + 1}, false, false},
			{"a stamp damaged, one iteration possible", damaged, []uint64{it}, false, false},
			{"the last op cut short", cut, []uint64{it, it + 1}, false, false},
			{"a wrong byte", base, []uint64{it, it + 1}, true, false},
		}
		if ops > 1 { // op 1 landed where op 0 belongs, and op 0 where op 1 does
			swapped := stamped(c.size, c.chunk, it)
			a, b := swapped[:c.chunk], swapped[c.chunk:2*c.chunk]
			tmp := append([]byte(nil), a...)
			copy(a, b)
			copy(b, tmp)
			bad = append(bad, badSlot{"two ops swapped", swapped, []uint64{it}, false, false})
		}
		for _, k := range bad {
			again, err := checkSlot(k.slot, c.chunk, k.its, k.full)
			if err == nil || !strings.Contains(err.Error(), "payload mismatch") {
				t.Errorf("size %d chunk %d, %s, iterations %v: %v, want a payload mismatch", c.size, c.chunk, k.name, k.its, err)
			}
			if again != k.torn {
				t.Errorf("size %d chunk %d, %s, iterations %v: read again %v, want %v", c.size, c.chunk, k.name, k.its, again, k.torn)
			}
		}
	}
}

// TestGathered holds the writer that sends every iteration from one
// unstamped buffer: its pieces and the iteration's edges make, byte for
// byte, the payload that stamping the buffer makes.
func TestGathered(t *testing.T) {
	for _, c := range []struct{ size, chunk uint64 }{
		{300001, 65536}, {65536, 65536}, {4096, 4096}, {100, 100}, {17, 17}, {16, 16}, {9, 9}, {3, 3}, {200, 64}, {1000, 24}, {1000, 17},
	} {
		for _, it := range []uint64{0, 1, 41} {
			got, want := gathered(c.size, c.chunk, it), stamped(c.size, c.chunk, it)
			if string(got) != string(want) {
				t.Errorf("size %d chunk %d iteration %d: gathered %d bytes differ from the stamped %d", c.size, c.chunk, it, len(got), len(want))
			}
		}
	}
}

// TestApart holds a target that lands each op's edges apart from its
// middle (efx_scatter) to the payload a slot would hold, and its check
// (efx_check_apart) to every stamp exactly and, in full, every middle byte.
func TestApart(t *testing.T) {
	for _, c := range []struct{ size, chunk uint64 }{
		{300001, 65536}, {65536, 65536}, {4096, 4096}, {100, 100}, {17, 17}, {16, 16}, {9, 9}, {3, 3}, {200, 64}, {1000, 24}, {1000, 17},
	} {
		for _, it := range []uint64{0, 1, 41} {
			name := fmt.Sprintf("size %d chunk %d iteration %d", c.size, c.chunk, it)
			mid, rec, err := scattered(c.size, c.chunk, it)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// the record's edges put back at the ops' edges make the stamped payload
			whole, want := append([]byte(nil), mid...), stamped(c.size, c.chunk, it)
			for k := uint64(0); k*16 < uint64(len(rec)); k++ {
				off, n := opAt(c.size, c.chunk, k)
				if n <= 16 {
					copy(whole[off:off+n], rec[k*16:])
					continue
				}
				copy(whole[off:], rec[k*16:k*16+8])
				copy(whole[off+n-8:], rec[k*16+8:k*16+16])
			}
			if string(whole) != string(want) {
				t.Errorf("%s: the landed pieces differ from the stamped payload", name)
			}
			if err := checkApart(mid, rec, c.chunk, it, true); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if err := checkApart(mid, rec, c.chunk, it+1, false); err == nil || !strings.Contains(err.Error(), "payload mismatch at byte") {
				t.Errorf("%s: checked as the next iteration: %v, want a mismatch", name, err)
			}
			off, n := opAt(c.size, c.chunk, 0)
			if n > 16 { // a middle byte: only a full check reads it, and it names it
				mid[off+8] ^= 0x5a
				if err := checkApart(mid, rec, c.chunk, it, false); err != nil {
					t.Errorf("%s: stamps only, a middle byte flipped: %v", name, err)
				}
				at := fmt.Sprintf("at byte %d of", off+8)
				if err := checkApart(mid, rec, c.chunk, it, true); err == nil || !strings.Contains(err.Error(), at) {
					t.Errorf("%s: in full, a middle byte flipped: %v, want a mismatch %s", name, err, at)
				}
				mid[off+8] ^= 0x5a
			}
			// the last stamp's last byte: the op's last byte
			last := n - 1
			rec[min(n, 16)-1] ^= 0x5a
			at := fmt.Sprintf("at byte %d of", off+last)
			if err := checkApart(mid, rec, c.chunk, it, false); err == nil || !strings.Contains(err.Error(), at) {
				t.Errorf("%s: an edge byte flipped: %v, want a mismatch %s", name, err, at)
			}
		}
	}
}
