//go:build cgo

package native

/*
#include <stdlib.h>
#include "efx.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// The payload pattern of pattern.c, seen from Go: its tests' view of what
// a writer puts in a slot and what a target accepts there.

// based returns a C buffer (the caller frees it) of size bytes of rank 0's
// base pattern, and the plan that cuts it into ops of chunk.
func based(size, chunk uint64) (unsafe.Pointer, C.efx_plan) {
	buf := C.malloc(C.size_t(size))
	var p C.efx_plan
	C.efx_plan_init(&p, C.uint64_t(size), C.uint64_t(chunk), 1)
	C.efx_fill((*C.uint8_t)(buf), C.size_t(size), 0)
	return buf, p
}

// stamped returns size bytes of rank 0's payload cut into ops of chunk,
// as the iteration it writes them.
func stamped(size, chunk, it uint64) []byte {
	buf, p := based(size, chunk)
	defer C.free(buf)
	C.efx_stamp((*C.uint8_t)(buf), &p, C.efx_seed(C.uint64_t(size), 0, C.uint64_t(it)), 0)
	return C.GoBytes(buf, C.int(size))
}

// checkSlot is the target's check of slot, rank 0's payload of len(slot)
// bytes cut into ops of chunk, which any of the iterations its may have
// written last (each op its own): nil, or the mismatch it reports, and
// whether a write landing as it read can explain it (EFX_TORN: read again).
func checkSlot(slot []byte, chunk uint64, its []uint64, full bool) (torn bool, err error) {
	size := C.uint64_t(len(slot))
	seeds := make([]C.uint64_t, len(its))
	for i, it := range its {
		seeds[i] = C.efx_seed(size, 0, C.uint64_t(it))
	}
	buf := C.CBytes(slot)
	defer C.free(buf)
	var p C.efx_plan
	C.efx_plan_init(&p, size, C.uint64_t(chunk), 1)
	var msg [C.EFX_ERRLEN]C.char
	if rc := C.efx_check_any((*C.uint8_t)(buf), &p, &seeds[0], C.int(len(seeds)), 0, C.bool(full), &msg[0]); rc != 0 {
		return rc == C.EFX_TORN, errors.New(C.GoString(&msg[0]))
	}
	return false, nil
}

// gathered returns what a writer that gathers sends as the iteration it
// of size bytes cut into ops of chunk: each op's pieces (efx_gather) from
// a buffer that holds the base pattern only and the iteration's edges
// (efx_edges), one after another.
func gathered(size, chunk, it uint64) []byte {
	buf, p := based(size, chunk)
	defer C.free(buf)
	rec := C.malloc(C.size_t(p.n * C.EFX_EDGE))
	defer C.free(rec)
	C.efx_edges((*C.uint8_t)(rec), &p, C.efx_seed(C.uint64_t(size), 0, C.uint64_t(it)), 0)
	var out []byte
	for k := C.uint64_t(0); k < p.n; k++ {
		var off, n C.uint64_t
		C.efx_plan_op(&p, k, &off, &n)
		var iov [3]C.struct_iovec
		edges := (*C.uint8_t)(unsafe.Add(rec, k*C.EFX_EDGE))
		pieces := C.efx_gather(edges, (*C.uint8_t)(unsafe.Add(buf, off)), C.size_t(n), &iov[0])
		for _, v := range iov[:pieces] {
			out = append(out, C.GoBytes(v.iov_base, C.int(v.iov_len))...)
		}
	}
	return out
}

// scattered is what a target that lands the edges apart (efx_scatter)
// holds after the iteration it of size bytes cut into ops of chunk, sent
// as a writer that gathers sends it (gathered): the middles in a buffer
// of size bytes (each op's edges left zero) and the edge record.
func scattered(size, chunk, it uint64) (mid, rec []byte, err error) {
	buf, p := based(size, chunk)
	defer C.free(buf)
	edges := C.malloc(C.size_t(p.n * C.EFX_EDGE))
	defer C.free(edges)
	C.efx_edges((*C.uint8_t)(edges), &p, C.efx_seed(C.uint64_t(size), 0, C.uint64_t(it)), 0)
	mid, rec = make([]byte, size), make([]byte, p.n*C.EFX_EDGE)
	const midAt, recAt = 1 << 20, 1 << 40 // remote addresses: which buffer a piece lands in
	for k := C.uint64_t(0); k < p.n; k++ {
		var off, n C.uint64_t
		C.efx_plan_op(&p, k, &off, &n)
		var iov [3]C.struct_iovec
		var rma [3]C.struct_fi_rma_iov
		pieces := C.efx_gather((*C.uint8_t)(unsafe.Add(edges, k*C.EFX_EDGE)), (*C.uint8_t)(unsafe.Add(buf, off)), C.size_t(n), &iov[0])
		if lands := C.efx_scatter(C.uint64_t(recAt+k*C.EFX_EDGE), C.uint64_t(midAt+off), C.size_t(n), 0, &rma[0]); lands != pieces {
			return nil, nil, fmt.Errorf("op %d: %d pieces sent, %d landing places", k, pieces, lands)
		}
		for i := 0; i < int(pieces); i++ {
			if iov[i].iov_len != rma[i].len {
				return nil, nil, fmt.Errorf("op %d piece %d: %d bytes sent into %d", k, i, iov[i].iov_len, rma[i].len)
			}
			to, at := mid, uint64(rma[i].addr)-midAt
			if rma[i].addr >= recAt {
				to, at = rec, uint64(rma[i].addr)-recAt
			}
			copy(to[at:], C.GoBytes(iov[i].iov_base, C.int(iov[i].iov_len)))
		}
	}
	return mid, rec, nil
}

// checkApart is the target's check of iteration it landed apart: the
// edge record rec and the middles in mid, rank 0's payload of len(mid)
// bytes cut into ops of chunk.
func checkApart(mid, rec []byte, chunk, it uint64, full bool) error {
	size := C.uint64_t(len(mid))
	m, r := C.CBytes(mid), C.CBytes(rec)
	defer C.free(m)
	defer C.free(r)
	var p C.efx_plan
	C.efx_plan_init(&p, size, C.uint64_t(chunk), 1)
	var msg [C.EFX_ERRLEN]C.char
	if C.efx_check_apart((*C.uint8_t)(r), (*C.uint8_t)(m), &p, C.efx_seed(size, 0, C.uint64_t(it)), 0, C.bool(full), &msg[0]) != 0 {
		return errors.New(C.GoString(&msg[0]))
	}
	return nil
}

// opAt returns op k's offset and length when size bytes are cut into ops of chunk.
func opAt(size, chunk, k uint64) (off, n uint64) {
	var p C.efx_plan
	C.efx_plan_init(&p, C.uint64_t(size), C.uint64_t(chunk), 1)
	var o, l C.uint64_t
	C.efx_plan_op(&p, C.uint64_t(k), &o, &l)
	return uint64(o), uint64(l)
}
