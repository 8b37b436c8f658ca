package datalog

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"unsafe"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/jsonscan"
)

// LoadJSON loads data in the JSON form ReadJSON reads straight into a DB:
// a scanner walks the text once and interns every value as it meets it,
// without building tuples of strings first. It accepts what ReadJSON accepts and loads the
// same relations. src is not modified, nor kept.
func LoadJSON(src []byte) (*DB, error) { return LoadJSONContext(context.Background(), src) }

// LoadJSONContext is LoadJSON that stops when ctx is done: the scanner
// looks at ctx at every tuple once it has scanned a bounded number of
// bytes (jsonscan.CheckEvery) since its previous look, and before it
// deduplicates each relation; the error wraps ctx's.
func LoadJSONContext(ctx context.Context, src []byte) (*DB, error) {
	return loadJSON(ctx, src, pipeMin)
}

// loadJSON is LoadJSONContext interning on a goroutine of its own when
// src has at least pipeMin bytes (negative: never; usePipe).
func loadJSON(ctx context.Context, src []byte, pipeMin int) (*DB, error) {
	if len(src) == 0 {
		return nil, fmt.Errorf("decode data: %w", io.EOF)
	}
	// The scanner reads src in place; what the DB keeps of it (names,
	// types, values) is copied.
	sc := &scanner{Scanner: jsonscan.Scanner{S: unsafe.String(&src[0], len(src)), Ctx: ctx}}
	// Room for the distinct values of typical data (about one per 128
	// bytes), so that the table rarely grows while it fills.
	db := &DB{ids: newInterner(len(src) / 128), rels: map[string]*relation{}, base: map[*table]map[string]*index{}}
	sc.db = db
	if usePipe(len(src), pipeMin) {
		sc.startPipe()
	}
	rels, err := sc.guardedTop()
	if perr := sc.stopPipe(); err == nil {
		err = perr
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("decode data: %w", err)
	}
	if rels == nil {
		return nil, errors.New("data has no \"relations\" object")
	}
	names := make([]string, 0, len(rels))
	for n := range rels {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := loadStopped(ctx); err != nil {
			return nil, err
		}
		sr := rels[name]
		if sr == nil {
			return nil, fmt.Errorf("relation %s: missing param_types and tuples", name)
		}
		ar := len(sr.types)
		tuples := 0
		for _, r := range sr.lens {
			if r.len != ar {
				return nil, fmt.Errorf("relation %s: tuple %d has %d values, want %d", name, tuples, r.len, ar)
			}
			tuples += r.count
		}
		if err := db.addLoaded(ctx, strings.Clone(name), sr.types, tuples, trimmed(sr.vals)); err != nil {
			return nil, err
		}
	}
	// A load cancelled while its last relation was added is cancelled
	// too: the caller asked it to stop before it was done.
	if err := loadStopped(ctx); err != nil {
		return nil, err
	}
	return db, nil
}

// guardedTop is top that turns a fault reading the text (a mapped file
// truncated under the load: files.Mapped) into an error.
func (sc *scanner) guardedTop() (rels map[string]*scanRel, err error) {
	err = guard(func() (err error) {
		rels, err = sc.top()
		return err
	})
	if err != nil {
		return nil, err
	}
	return rels, nil
}

// guard runs fn, turning a fault reading a mapped text that was
// truncated under it (files.Mapped) into files.ErrTruncated.
func guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if v := recover(); v != nil {
			err = files.Fault(v)
		}
	}()
	return fn()
}

// LoadPath loads a JSON data file or a facts directory into a DB.
func LoadPath(path string) (*DB, error) { return LoadPathFrom(files.New(0, ""), path) }

// LoadPathFrom is LoadPath with every file opened through r.
func LoadPathFrom(r *files.Reader, path string) (*DB, error) {
	return LoadPathFromContext(context.Background(), r, path)
}

// LoadPathFromContext is LoadPathFrom that stops when ctx is done, as
// LoadJSONContext and LoadContext do.
func LoadPathFromContext(ctx context.Context, r *files.Reader, path string) (*DB, error) {
	st, err := r.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	if st.IsDir() {
		// As for JSON, the DB keeps nothing of the files' text.
		f, err := MapFacts(ctx, r, path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return f.Load(ctx)
	}
	// The DB keeps nothing of the text (LoadJSON): a mapping of the file
	// is released once it is loaded.
	m, err := r.Map(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	defer m.Close()
	return LoadJSONContext(ctx, m.Bytes())
}

// loadStopped returns the error of a load stopped because ctx is done, or
// nil.
func loadStopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("loading stopped: %w", err)
	}
	return nil
}

// scanRel is a relation while it is scanned: its types and its values,
// interned, with the length of each tuple.
type scanRel struct {
	types []string
	vals  []uint32
	lens  []lenRun
	// n counts the values scanned: the positions of vals, whose ids are
	// set when they are interned (by the scanner, or the interning
	// goroutine of a pipelined load, which alone writes vals then).
	n int32
}

// lenRun is a run of count consecutive tuples of len values each.
type lenRun struct{ len, count int }

// tuple records the end of a tuple of n values.
func (sr *scanRel) tuple(n int) {
	if k := len(sr.lens) - 1; k >= 0 && sr.lens[k].len == n {
		sr.lens[k].count++
		return
	}
	sr.lens = append(sr.lens, lenRun{len: n, count: 1})
}

// lastVal is the value last seen in a column of a relation's tuples and
// its position in the relation's values.
type lastVal struct {
	s  string
	at int32
	ok bool
}

// pendingVal is a scanned value waiting to be interned: its text, its
// position in the relation's values, and the earlier position of an
// equal value it takes the id of (-1: none).
type pendingVal struct {
	s        string
	h        uint64 // the hash of s, when from is -1
	at, from int32
}

// internBatch is the number of values interned together: enough for the
// processor to overlap their table lookups' cache misses.
const internBatch = 64

// maxFastValues bounds the tuples fastTuple scans, and the columns whose
// last value is remembered.
const maxFastValues = 8

// fastTuple scans a tuple whose values are all plain strings (no escape,
// no byte outside printable ASCII) and reports whether it did; otherwise
// it leaves the scanner where it was, for the general path.
func (sc *scanner) fastTuple(sr *scanRel, last []lastVal) bool {
	start := sc.I
	if sc.Peek() != '[' {
		return false
	}
	sc.I++
	var vals [maxFastValues]string
	n := 0
	if sc.Peek() != ']' {
		for {
			if n == len(vals) || sc.Peek() != '"' {
				sc.I = start
				return false
			}
			v, ok := sc.PlainStr()
			if !ok {
				sc.I = start
				return false
			}
			vals[n] = v
			n++
			c := sc.Peek()
			if c == ']' {
				break
			}
			if c != ',' {
				sc.I = start
				return false
			}
			sc.I++
		}
	}
	sc.I++
	for i, v := range vals[:n] {
		sc.value(sr, last, i, v)
	}
	sr.tuple(n)
	return true
}

// value records the scanned value v in column n of the tuple being
// scanned. Its id is set when the batch of pending values is interned.
// Tuples often repeat the previous tuple's value in a column (grouped
// data): that one takes the id of the earlier value.
func (sc *scanner) value(sr *scanRel, last []lastVal, n int, v string) {
	at := sr.n
	sr.n++
	from := int32(-1)
	if n < len(last) {
		if last[n].ok && last[n].s == v {
			from = last[n].at
		} else {
			last[n] = lastVal{s: v, at: at, ok: true}
		}
	}
	var h uint64
	if from < 0 {
		h = maphash.String(sc.db.ids.seed, v)
	}
	sc.pend = append(sc.pend, pendingVal{s: v, h: h, at: at, from: from})
	switch {
	case sc.pipe == nil && len(sc.pend) == internBatch:
		sc.resolve(sr)
	case sc.pipe != nil && len(sc.pend) == pipeBatch:
		sc.ship(sr, len(sc.pend))
	}
}

// resolve interns the pending values into sr.vals (or hands them to the
// interning goroutine).
func (sc *scanner) resolve(sr *scanRel) {
	if sc.pipe != nil {
		sc.ship(sr, len(sc.pend))
		return
	}
	sr.vals = grown(sr.vals, sr.n, sc.sizeHint(sr))
	sc.touched += sc.db.resolveInto(sr.vals, sc.pend)
	sc.pend = sc.pend[:0]
}

// sizeHint estimates the number of values of the relation whose tuples
// are being scanned, from the values scanned so far and the share of the
// text they took, as if the relation's tuples went on to the text's end
// (the whole of the text, for the usual file of one large relation);
// 0 when it cannot tell. loadJSON trims a relation's values that turn out
// much fewer.
func (sc *scanner) sizeHint(sr *scanRel) int32 {
	done := sc.I - sc.relStart
	if done <= 0 || sc.relStart <= 0 || sr.n < internBatch {
		return 0
	}
	est := int64(sr.n) * int64(len(sc.S)-sc.relStart) / int64(done)
	return int32(min(est+est/16, math.MaxInt32))
}

// grown returns vals with a length of at least n. Its capacity at least
// doubles when it grows (append grows a large slice by a quarter), so that
// a relation's values are copied, and their memory first touched, about
// twice in all rather than about five times; it grows at once to hint
// values when that is more, so that the values of a relation whose size
// the hint tells are not copied at all.
func grown(vals []uint32, n, hint int32) []uint32 {
	if len(vals) >= int(n) {
		return vals
	}
	if int(n) > cap(vals) {
		vals = slices.Grow(vals, max(int(n), 2*cap(vals), int(hint))-len(vals))
	}
	return vals[:n]
}

// trimmed returns vals with no more than a quarter of its length unused
// past it: a relation's values grown to a size hint that was too large
// are copied to their size.
func trimmed(vals []uint32) []uint32 {
	if cap(vals)-len(vals) > len(vals)/4+internBatch {
		return slices.Clone(vals)
	}
	return vals
}

// resolveInto interns values into vals (at their positions, which it
// holds), internBatch at a time, and returns the sum of what it read
// ahead.
func (db *DB) resolveInto(vals []uint32, pend []pendingVal) uint64 {
	var touch uint64
	for len(pend) > 0 {
		b := pend[:min(len(pend), internBatch)]
		pend = pend[len(b):]
		in := &db.ids
		mask := uint64(len(in.slots) - 1)
		// Read the slots of the hashes, then the strings the slots
		// name, as independent loads; then intern in order, from the
		// cache.
		for _, p := range b {
			if p.from < 0 {
				touch += in.slots[p.h&mask]
			}
		}
		for _, p := range b {
			if p.from < 0 {
				if e := in.slots[p.h&mask]; e != 0 {
					if s := db.strs[uint32(e)-1]; len(s) > 0 {
						touch += uint64(s[0])
					}
				}
			}
		}
		for _, p := range b {
			if p.from >= 0 {
				vals[p.at] = vals[p.from]
				continue
			}
			// The string's number, the lookup inline: a new string is
			// copied first, so that the DB does not keep the text it
			// was sliced from.
			mask := uint64(len(in.slots) - 1)
			tag := p.h << 32
			for i := p.h & mask; ; i = (i + 1) & mask {
				e := in.slots[i]
				if e == 0 {
					vals[p.at] = db.add(in.copyString(p.s), int(i), p.h)
					break
				}
				if e&^0xffffffff == tag {
					if id := uint32(e) - 1; sameString(db.strs[id], p.s) {
						vals[p.at] = id
						break
					}
				}
			}
		}
	}
	return touch
}

// scanner reads the data's JSON text. Like encoding/json it matches keys
// case-insensitively when no key matches exactly, lets a later duplicate
// key win, ignores unknown keys and what follows the top-level value, and
// replaces invalid UTF-8 in strings by U+FFFD.
type scanner struct {
	jsonscan.Scanner
	db   *DB
	pend []pendingVal
	// touched sums what resolve read ahead, so that the reads are kept.
	touched uint64
	// pipe, when not nil, interns the scanned values on a goroutine of
	// its own while the scanner goes on (pipe.go).
	pipe *internPipe
	// relStart is where the tuples of the relation being scanned begin
	// in the text (sizeHint).
	relStart int
}

const maxScanDepth = 10000

// null consumes a null and reports whether there was one.
func (sc *scanner) null() (bool, error) {
	if sc.Peek() != 'n' {
		return false, nil
	}
	if len(sc.S)-sc.I < 4 || sc.S[sc.I:sc.I+4] != "null" {
		return false, sc.Unexpected("a JSON value")
	}
	sc.I += 4
	return true, nil
}

// skip scans over any JSON value.
func (sc *scanner) skip(depth int) error {
	if depth > maxScanDepth {
		return sc.Errorf("value nested deeper than %d levels", maxScanDepth)
	}
	if err := sc.Check(); err != nil {
		return err
	}
	switch c := sc.Peek(); {
	case c == '"':
		_, err := sc.Str()
		return err
	case c == '{':
		return sc.Object(func(string) error { return sc.skip(depth + 1) })
	case c == '[':
		return sc.Array(func(int) error { return sc.skip(depth + 1) })
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(sc.S)-sc.I >= len(lit) && sc.S[sc.I:sc.I+len(lit)] == lit {
				sc.I += len(lit)
				return nil
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := sc.Number()
		return err
	}
	return sc.Unexpected("a JSON value")
}

// field matches a key against a field name as encoding/json does: exactly,
// or else case-insensitively.
func field(key, name string) bool {
	if key == name {
		return true
	}
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// top scans the top-level object and returns the relations (nil when
// there is no "relations" object).
func (sc *scanner) top() (map[string]*scanRel, error) {
	if ok, err := sc.null(); ok || err != nil {
		return nil, err
	}
	var rels map[string]*scanRel
	err := sc.Object(func(key string) error {
		if !field(key, "relations") {
			return sc.skip(1)
		}
		if ok, err := sc.null(); ok || err != nil {
			rels = nil
			return err
		}
		if rels == nil {
			rels = map[string]*scanRel{}
		}
		return sc.Object(func(name string) error {
			if ok, err := sc.null(); ok || err != nil {
				if ok {
					rels[name] = nil
				}
				return err
			}
			sr := &scanRel{}
			rels[name] = sr
			return sc.relation(sr)
		})
	})
	if err != nil {
		return nil, err
	}
	return rels, nil
}

// relation scans one relation's object into sr.
func (sc *scanner) relation(sr *scanRel) error {
	return sc.Object(func(key string) error {
		switch {
		case field(key, "param_types"):
			if ok, err := sc.null(); ok || err != nil {
				sr.types = nil
				return err
			}
			sr.types = []string{}
			return sc.Array(func(int) error {
				if ok, err := sc.null(); ok || err != nil {
					sr.types = append(sr.types, "")
					return err
				}
				if sc.Peek() != '"' {
					return sc.Unexpected("a string")
				}
				t, err := sc.Str()
				sr.types = append(sr.types, strings.Clone(t))
				return err
			})
		case field(key, "tuples"):
			return sc.tuples(sr)
		}
		return sc.skip(1)
	})
}

// tuples scans a relation's "tuples" array into sr. (A method of its own,
// compiled once: as a closure within relation, the look at the context
// was not inlined where top inlines relation.)
func (sc *scanner) tuples(sr *scanRel) error {
	if ok, err := sc.null(); ok || err != nil {
		sc.setVals(sr, false)
		sr.lens = nil
		return err
	}
	sc.setVals(sr, true)
	sr.lens = sr.lens[:0]
	sc.relStart = sc.I
	last := make([]lastVal, maxFastValues)
	err := sc.Array(func(int) error {
		if err := sc.Check(); err != nil {
			return err
		}
		if sc.fastTuple(sr, last) {
			return nil
		}
		if ok, err := sc.null(); ok || err != nil {
			sr.tuple(0)
			return err
		}
		n := 0
		err := sc.Array(func(int) error {
			if ok, err := sc.null(); ok || err != nil {
				// encoding/json leaves a string unset for null.
				sc.empty(sr)
				n++
				return err
			}
			if sc.Peek() != '"' {
				return sc.Unexpected("a string value")
			}
			v, err := sc.Str()
			if err != nil {
				return err
			}
			sc.value(sr, last, n, v)
			n++
			return nil
		})
		sr.tuple(n)
		return err
	})
	sc.resolve(sr)
	return err
}

// addLoaded adds a relation the data gives: its tuples' values, row after
// row, deduplicated (a relation of no column holds one empty tuple when
// the data has any).
func (db *DB) addLoaded(ctx context.Context, name string, types []string, tuples int, vals []uint32) error {
	ar := len(types)
	tab := newTable(ar)
	if ar == 0 {
		if tuples > 0 {
			tab.append(nil)
		}
	} else {
		var err error
		stop := func() error { return loadStopped(ctx) }
		grouped := false
		if ar >= 2 && len(db.strs)/64 <= len(vals)/ar {
			// Data grouped by its first column, the common case, is
			// deduplicated run by run, without a hashed set (when its
			// bitmap of first values is not larger than the rows).
			if vals, grouped, err = dedupGrouped(ar, len(db.strs), vals, stop); err != nil {
				return err
			}
		}
		switch {
		case grouped:
		case len(vals)/ar >= splitDedupMin && runtime.GOMAXPROCS(0) > 1:
			vals, err = dedupSplit(ar, len(db.strs), vals, stop)
		default:
			vals, err = newLoadSet(ar, len(db.strs), len(vals)/ar).dedup(vals, stop)
		}
		if err != nil {
			return err
		}
		tab = tableOf(ar, vals)
	}
	db.rels[name] = &relation{types: types, tab: tab}
	db.base[tab] = map[string]*index{}
	return nil
}
