package datalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxql/ctxql/internal/files"
)

// LoadJSON loads data in the JSON form ReadJSON reads straight into a DB:
// a scanner walks the text once and interns every value as it meets it,
// without building tuples of strings first. It accepts what ReadJSON accepts and loads the
// same relations.
func LoadJSON(src []byte) (*DB, error) {
	sc := &scanner{s: string(src)}
	// Room for the distinct values of typical data (about one per 128
	// bytes), so that the table rarely grows while it fills.
	db := &DB{ids: make(map[string]uint32, len(src)/128), rels: map[string]*relation{}, base: map[*table]map[string]*index{}}
	sc.db = db
	rels, err := sc.top()
	if err != nil {
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
		sr := rels[name]
		if sr == nil {
			return nil, fmt.Errorf("relation %s: missing param_types and tuples", name)
		}
		ar := len(sr.types)
		for i, l := range sr.lens {
			if l != ar {
				return nil, fmt.Errorf("relation %s: tuple %d has %d values, want %d", name, i, l, ar)
			}
		}
		tab := newTable(ar)
		if ar == 0 {
			if len(sr.lens) > 0 {
				tab.n = 1
			}
		} else {
			n := len(sr.lens)
			set := newTupleSetSized(ar, len(db.strs), n)
			tab.data = make([]uint32, 0, n*ar)
			for i := range n {
				row := sr.vals[i*ar : (i+1)*ar]
				if set.add(row) {
					tab.append(row)
				}
			}
		}
		db.rels[name] = &relation{types: sr.types, tab: tab}
		db.base[tab] = map[string]*index{}
	}
	return db, nil
}

// LoadPath loads a JSON data file or a facts directory into a DB.
func LoadPath(path string) (*DB, error) { return LoadPathFrom(files.New(0, ""), path) }

// LoadPathFrom is LoadPath with every file opened through r.
func LoadPathFrom(r *files.Reader, path string) (*DB, error) {
	st, err := r.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	if st.IsDir() {
		d, err := ReadFactsDirFrom(r, path)
		if err != nil {
			return nil, err
		}
		return Load(d)
	}
	f, err := r.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	defer f.Close()
	b, err := r.ReadAll(path, f)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	return LoadJSON(b)
}

// scanRel is a relation while it is scanned: its types and its values,
// interned, with the length of each tuple.
type scanRel struct {
	types []string
	vals  []uint32
	lens  []int
}

// lastVal is the value last seen in a column of a relation's tuples.
type lastVal struct {
	s  string
	id uint32
	ok bool
}

// scanner reads the data's JSON text. Like encoding/json it matches keys
// case-insensitively when no key matches exactly, lets a later duplicate
// key win, ignores unknown keys and what follows the top-level value, and
// replaces invalid UTF-8 in strings by U+FFFD.
type scanner struct {
	s  string
	i  int
	db *DB
}

const maxScanDepth = 10000

func (sc *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", sc.i, fmt.Sprintf(format, args...))
}

func (sc *scanner) peek() byte {
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; c {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return c
		}
	}
	return 0
}

func (sc *scanner) unexpected(want string) error {
	if sc.i >= len(sc.s) {
		if sc.i == 0 {
			return io.EOF
		}
		return sc.errorf("unexpected end of input, expected %s", want)
	}
	return sc.errorf("unexpected %q, expected %s", sc.s[sc.i], want)
}

func (sc *scanner) expect(c byte) error {
	if sc.peek() != c {
		return sc.unexpected(fmt.Sprintf("%q", c))
	}
	sc.i++
	return nil
}

// null consumes a null and reports whether there was one.
func (sc *scanner) null() (bool, error) {
	if sc.peek() != 'n' {
		return false, nil
	}
	if len(sc.s)-sc.i < 4 || sc.s[sc.i:sc.i+4] != "null" {
		return false, sc.unexpected("a JSON value")
	}
	sc.i += 4
	return true, nil
}

// object calls member for each key, with the scanner before its value.
func (sc *scanner) object(member func(key string) error) error {
	if err := sc.expect('{'); err != nil {
		return err
	}
	if sc.peek() == '}' {
		sc.i++
		return nil
	}
	for {
		if sc.peek() != '"' {
			return sc.unexpected("a string key")
		}
		k, err := sc.str()
		if err != nil {
			return err
		}
		if err := sc.expect(':'); err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.unexpected("',' or '}'")
		}
	}
}

// array calls elem for each element, with the scanner before it.
func (sc *scanner) array(elem func() error) error {
	if err := sc.expect('['); err != nil {
		return err
	}
	if sc.peek() == ']' {
		sc.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case ']':
			sc.i++
			return nil
		default:
			return sc.unexpected("',' or ']'")
		}
	}
}

// str scans a string and returns its value: a substring of the input when
// it has no escapes and is valid UTF-8, decoded by encoding/json otherwise.
func (sc *scanner) str() (string, error) {
	start := sc.i
	sc.i++
	simple := true
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == '"':
			sc.i++
			if simple {
				return sc.s[start+1 : sc.i-1], nil
			}
			var out string
			if err := json.Unmarshal([]byte(sc.s[start:sc.i]), &out); err != nil {
				sc.i = start
				return "", sc.errorf("invalid string: %v", err)
			}
			return out, nil
		case c == '\\':
			simple = false
			sc.i += 2
		case c < 0x20:
			return "", sc.errorf("control character in string")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(sc.s[sc.i:])
			if r == utf8.RuneError && size == 1 {
				simple = false
			}
			sc.i += size
		default:
			sc.i++
		}
	}
	sc.i = start
	return "", sc.errorf("unterminated string")
}

// intern interns a value scanned from the input. A new value is copied
// out of the input: the copies of distinct values sit together in memory,
// which keeps lookups in cache, and the input is not kept alive.
func (sc *scanner) intern(v string) uint32 {
	db := sc.db
	if id, ok := db.ids[v]; ok {
		return id
	}
	return db.intern(strings.Clone(v))
}

// skip scans over any JSON value.
func (sc *scanner) skip(depth int) error {
	if depth > maxScanDepth {
		return sc.errorf("value nested deeper than %d levels", maxScanDepth)
	}
	switch c := sc.peek(); {
	case c == '"':
		_, err := sc.str()
		return err
	case c == '{':
		return sc.object(func(string) error { return sc.skip(depth + 1) })
	case c == '[':
		return sc.array(func() error { return sc.skip(depth + 1) })
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(sc.s)-sc.i >= len(lit) && sc.s[sc.i:sc.i+len(lit)] == lit {
				sc.i += len(lit)
				return nil
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return sc.number()
	}
	return sc.unexpected("a JSON value")
}

// number scans over a JSON number.
func (sc *scanner) number() error {
	s, i := sc.s, sc.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		sc.i = i
		return sc.unexpected("a digit")
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			sc.i = i
			return sc.unexpected("a digit")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			sc.i = i
			return sc.unexpected("a digit")
		}
	}
	sc.i = i
	return nil
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
	err := sc.object(func(key string) error {
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
		return sc.object(func(name string) error {
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
	return sc.object(func(key string) error {
		switch {
		case field(key, "param_types"):
			if ok, err := sc.null(); ok || err != nil {
				sr.types = nil
				return err
			}
			sr.types = []string{}
			return sc.array(func() error {
				if ok, err := sc.null(); ok || err != nil {
					sr.types = append(sr.types, "")
					return err
				}
				if sc.peek() != '"' {
					return sc.unexpected("a string")
				}
				t, err := sc.str()
				sr.types = append(sr.types, t)
				return err
			})
		case field(key, "tuples"):
			if ok, err := sc.null(); ok || err != nil {
				sr.vals, sr.lens = nil, nil
				return err
			}
			sr.vals, sr.lens = sr.vals[:0], sr.lens[:0]
			lasts := make([]lastVal, 8)
			return sc.array(func() error {
				if ok, err := sc.null(); ok || err != nil {
					sr.lens = append(sr.lens, 0)
					return err
				}
				n := 0
				last := lasts
				err := sc.array(func() error {
					if ok, err := sc.null(); ok || err != nil {
						// encoding/json leaves a string unset for null.
						sr.vals = append(sr.vals, sc.db.intern(""))
						n++
						return err
					}
					if sc.peek() != '"' {
						return sc.unexpected("a string value")
					}
					v, err := sc.str()
					if err != nil {
						return err
					}
					// Tuples often repeat the previous tuple's value in
					// a column (grouped data): reuse its id.
					var id uint32
					if n < len(last) && last[n].ok && last[n].s == v {
						id = last[n].id
					} else {
						id = sc.intern(v)
						if n < len(last) {
							last[n] = lastVal{s: v, id: id, ok: true}
						}
					}
					sr.vals = append(sr.vals, id)
					n++
					return nil
				})
				sr.lens = append(sr.lens, n)
				return err
			})
		}
		return sc.skip(1)
	})
}
