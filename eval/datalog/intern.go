package datalog

import (
	"hash/maphash"
	"slices"
	"unsafe"

	"github.com/ctxql/ctxql/internal/jsonscan"
)

// interner maps the strings of a DB to their ids: an open-addressing
// table of 8-byte slots, each holding the low half of the string's hash
// and its id plus one (0: empty), so that a lookup reads one slot and,
// when the hashes agree, the string. A string's home slot is given by the
// low bits of its hash, which its slot holds: the table grows without
// hashing, nor reading, the strings again. Scanned values are copied into
// shared chunks, which keeps the strings together in memory.
type interner struct {
	seed  maphash.Seed
	slots []uint64
	n     int
	chunk []byte // the free tail of the current chunk
}

// chunkSize is the size of the chunks scanned values are copied into.
const chunkSize = 64 << 10

func newInterner(size int) interner {
	n := 16
	for n < 2*size {
		n *= 2
	}
	return interner{seed: maphash.MakeSeed(), slots: make([]uint64, n)}
}

// touch writes the memory of a table that holds nothing yet, one slot a
// page, before the lookups read it: a page of a new table is then faulted
// in once, where a read before the first write faults it twice (a read
// maps the shared zero page, the write then copies it). A load calls it on
// the goroutine that interns.
func (in *interner) touch() {
	if in.n > 0 {
		return
	}
	const perPage = 4096 / 8
	for i := 0; i < len(in.slots); i += perPage {
		in.slots[i] = 0
	}
}

// find returns the id of s (hash h) and true, or the index of the empty
// slot where s goes and false.
func (in *interner) find(strs []string, s string, h uint64) (uint32, int, bool) {
	mask := uint64(len(in.slots) - 1)
	tag := h << 32
	for i := h & mask; ; i = (i + 1) & mask {
		e := in.slots[i]
		if e == 0 {
			return 0, int(i), false
		}
		if e&^0xffffffff == tag {
			id := uint32(e) - 1
			if strs[id] == s {
				return id, int(i), true
			}
		}
	}
}

// put records id for the string of hash h in the empty slot i, and grows
// the table when it is half full.
func (in *interner) put(strs []string, i int, h uint64, id uint32) {
	in.slots[i] = h<<32 | uint64(id+1)
	in.n++
	if 2*in.n <= len(in.slots) {
		return
	}
	old := in.slots
	in.slots = make([]uint64, 2*len(old))
	mask := uint64(len(in.slots) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		j := e >> 32 & mask
		if mask > 0xffffffff {
			// Past the bits a slot keeps of the hash.
			j = maphash.String(in.seed, strs[uint32(e)-1]) & mask
		}
		for in.slots[j] != 0 {
			j = (j + 1) & mask
		}
		in.slots[j] = e
	}
}

// copyString returns a copy of s in the interner's chunks.
func (in *interner) copyString(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > cap(in.chunk) {
		if len(s) > chunkSize/4 {
			return string([]byte(s))
		}
		in.chunk = make([]byte, 0, chunkSize)
	}
	start := len(in.chunk)
	in.chunk = append(in.chunk, s...)
	b := in.chunk[start:]
	in.chunk = in.chunk[len(in.chunk):]
	// The bytes of b are never written again: the chunk only grows past
	// them.
	return unsafe.String(&b[0], len(b))
}

// sameString reports whether a and b are equal, comparing strings of 8
// bytes or more a word at a time, without a call.
func sameString(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) < 8 {
		return a == b
	}
	n := len(a) - 8
	for i := 0; i < n; i += 8 {
		if jsonscan.Word8(a[i:]) != jsonscan.Word8(b[i:]) {
			return false
		}
	}
	return jsonscan.Word8(a[n:]) == jsonscan.Word8(b[n:])
}

// lookup returns the id of s, and false when s is not interned.
func (db *DB) lookup(s string) (uint32, bool) {
	id, _, ok := db.ids.find(db.strs, s, maphash.String(db.ids.seed, s))
	return id, ok
}

// intern returns the id of s, interning s (not copied) when it is new.
func (db *DB) intern(s string) uint32 {
	h := maphash.String(db.ids.seed, s)
	id, i, ok := db.ids.find(db.strs, s, h)
	if ok {
		return id
	}
	return db.add(s, i, h)
}

func (db *DB) add(s string, slot int, h uint64) uint32 {
	id := uint32(len(db.strs))
	if len(db.strs) == cap(db.strs) {
		// Doubled, as grown does a relation's values.
		db.strs = slices.Grow(db.strs, max(len(db.strs), 64))
	}
	db.strs = append(db.strs, s)
	db.ids.put(db.strs, slot, h, id)
	return id
}
