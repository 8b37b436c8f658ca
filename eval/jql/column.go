package jql

import (
	"strings"
	"sync"

	"github.com/valyala/fastjson"
)

// segment is up to segSize documents of a docSet, [lo, hi), with what has
// been built for them: whether each is an object, its sort key, and the
// columns of the paths queries have tested.
type segment struct {
	lo, hi int

	mu   sync.Mutex
	keys []sortKey // nil until built
	obj  []bool
	cols map[string]*column
}

// Value kinds of a column.
const (
	kString uint8 = iota
	kNumber
	kTrue
	kFalse
	kNull
	kOther // an object: no literal equals it
	nKinds
)

// column holds, for each document of a segment, the values a path reaches
// as a condition sees them (arrays crossed, an array at the end included,
// as anyValue walks), and whether the path reaches anything at all (as
// present decides exists). Strings are stored once each in a dictionary.
type column struct {
	off     []int32 // values of document i are [off[i], off[i+1])
	kind    []uint8
	num     []float64 // the number of a kNumber value
	sid     []uint32  // the dictionary index of a kString value
	present []bool
	dict    []string
	times   []timeVal // the instant of each dictionary string that is a time
	// ids finds a string's dictionary index while the column is built;
	// past maxIDs distinct strings (a field of mostly distinct values,
	// such as a time or an id) it is dropped and every further string
	// gets an entry of its own, which costs no hashing.
	ids    map[string]uint32
	maxIDs int
}

// timeVal is an RFC 3339 instant, or ok false for a string that is not one.
type timeVal struct {
	sec  int64
	nsec int32
	ok   bool
}

func pathKey(path []string) string { return strings.Join(path, "\x00") }

// prepare builds what the segment lacks of the keys and of the columns of
// paths, parsing each of its documents once, and returns the columns in
// the order of paths.
func (sg *segment) prepare(docs [][]byte, paths [][]string, p *fastjson.Parser) ([]*column, error) {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	if sg.cols == nil {
		sg.cols = map[string]*column{}
	}
	out := make([]*column, len(paths))
	var missing [][]string
	var build []*column
	for i, path := range paths {
		k := pathKey(path)
		c := sg.cols[k]
		if c == nil {
			c = &column{ids: map[string]uint32{}, maxIDs: (sg.hi - sg.lo) / 8, off: make([]int32, 1, sg.hi-sg.lo+1), present: make([]bool, 0, sg.hi-sg.lo)}
			sg.cols[k] = c
			missing = append(missing, path)
			build = append(build, c)
		}
		out[i] = c
	}
	needKeys := sg.keys == nil
	if !needKeys && len(build) == 0 {
		return out, nil
	}
	var keys []sortKey
	var obj []bool
	if needKeys {
		keys = make([]sortKey, sg.hi-sg.lo)
		obj = make([]bool, sg.hi-sg.lo)
	}
	for i := sg.lo; i < sg.hi; i++ {
		v, err := p.ParseBytes(docs[i])
		if err != nil {
			for _, path := range missing {
				delete(sg.cols, pathKey(path))
			}
			return nil, dataErr("%w", err)
		}
		isObj := v.Type() == fastjson.TypeObject
		if needKeys {
			obj[i-sg.lo] = isObj
			if isObj {
				keys[i-sg.lo] = keyOf(v)
			}
		}
		for j, c := range build {
			if isObj {
				c.present = append(c.present, present(v, missing[j]))
				c.add(v, missing[j])
			} else {
				c.present = append(c.present, false)
			}
			c.off = append(c.off, int32(len(c.kind)))
		}
	}
	for _, c := range build {
		c.ids = nil
	}
	if needKeys {
		sg.keys, sg.obj = keys, obj
	}
	return out, nil
}

// add appends the values path reaches in v, crossing arrays as anyValue
// does.
func (c *column) add(v *fastjson.Value, path []string) {
	if v.Type() == fastjson.TypeArray {
		a, _ := v.Array()
		for _, e := range a {
			c.add(e, path)
		}
		return
	}
	if len(path) > 0 {
		if v.Type() != fastjson.TypeObject {
			return
		}
		if ch := v.Get(path[0]); ch != nil {
			c.add(ch, path[1:])
		}
		return
	}
	var k uint8
	var f float64
	var id uint32
	switch v.Type() {
	case fastjson.TypeString:
		k = kString
		b, _ := v.StringBytes()
		var ok bool
		if c.ids != nil {
			id, ok = c.ids[string(b)]
		}
		if !ok {
			s := string(b)
			id = uint32(len(c.dict))
			if c.ids != nil {
				if len(c.ids) < c.maxIDs {
					c.ids[s] = id
				} else {
					c.ids = nil
				}
			}
			c.dict = append(c.dict, s)
			var tv timeVal
			if len(s) >= 20 && s[0] >= '0' && s[0] <= '9' {
				if t, ok := parseTime(s); ok {
					tv = timeVal{sec: t.Unix(), nsec: int32(t.Nanosecond()), ok: true}
				}
			}
			c.times = append(c.times, tv)
		}
	case fastjson.TypeNumber:
		k = kNumber
		f, _ = v.Float64()
	case fastjson.TypeTrue:
		k = kTrue
	case fastjson.TypeFalse:
		k = kFalse
	case fastjson.TypeNull:
		k = kNull
	default:
		k = kOther
	}
	c.kind = append(c.kind, k)
	c.num = append(c.num, f)
	c.sid = append(c.sid, id)
}
