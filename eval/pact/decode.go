package pact

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxql/ctxql/internal/jsonscan"
)

// Attr is one attribute of a node: a key of the node's JSON object other
// than "children" with its decoded value (string, json.Number, bool, nil,
// []any or map[string]any).
type Attr struct {
	Key   string
	Value any
}

// maxNesting is encoding/json's bound on the nesting of objects and
// arrays: the top-level value is at depth 1, and a container deeper than
// maxNesting is an error. It bounds the tree (a node at tree level L is at
// depth base+2L, where base is 2 for {"root": ...} and 4 inside
// "snapshots") and the attribute values alike, so that the loader accepts
// exactly the nesting encoding/json accepts and its recursion stays
// shallow.
const maxNesting = 10000

// decoder is a JSON scanner specialised for snapshot data. It builds a
// snapshot's node columns directly while it scans, without an intermediate
// map per object: a node keeps where its JSON object is in the input and
// the headers the evaluator reads most, and other attributes are decoded
// when they are read. Values it accepts and rejects are those of
// encoding/json, except that duplicate "children", "root" and "snapshots"
// keys and data after the top-level value are errors.
type decoder struct {
	jsonscan.Scanner

	snap    *Snapshot
	typeIDs map[string]int32 // type indexes of the snapshot being built
	last    int              // node count of the previous snapshot
	base    int              // nesting depth of the snapshot's root object
}

func (d *decoder) literal(word string, v any) (any, error) {
	if len(d.S)-d.I >= len(word) && d.S[d.I:d.I+len(word)] == word {
		d.I += len(word)
		return v, nil
	}
	return nil, d.Errorf("invalid literal, expected %s", word)
}

// skip scans over any JSON value, validating it; depth is the nesting
// depth the value has when it is an object or an array.
func (d *decoder) skip(depth int) error {
	switch c := d.Peek(); {
	case (c == '{' || c == '[') && depth > maxNesting:
		return d.tooDeep()
	case c == '"':
		return d.skipStr()
	case c == '{':
		return d.Object(func(string) error { return d.skip(depth + 1) })
	case c == '[':
		return d.Array(func(int) error { return d.skip(depth + 1) })
	case c == 't':
		_, err := d.literal("true", true)
		return err
	case c == 'f':
		_, err := d.literal("false", false)
		return err
	case c == 'n':
		_, err := d.literal("null", nil)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := d.Number()
		return err
	}
	return d.Unexpected("a JSON value")
}

// skipStr scans over a string, validating its escapes.
func (d *decoder) skipStr() error {
	start := d.I
	d.I++
	for d.I < len(d.S) {
		c := d.S[d.I]
		switch {
		case c == '"':
			d.I++
			return nil
		case c == '\\':
			if d.I+1 >= len(d.S) {
				break
			}
			switch d.S[d.I+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.I += 2
			case 'u':
				if d.I+6 > len(d.S) || !isHex4(d.S[d.I+2:d.I+6]) {
					return d.Errorf("invalid \\u escape in string")
				}
				d.I += 6
			default:
				return d.Errorf("invalid escape in string")
			}
			continue
		case c < 0x20:
			return d.Errorf("control character in string")
		}
		d.I++
	}
	d.I = start
	return d.Errorf("unterminated string")
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// tooDeep is the error for an object or array nested deeper than
// maxNesting.
func (d *decoder) tooDeep() error {
	return d.Errorf("data nested deeper than %d levels", maxNesting)
}

// rawValue scans over a value at nesting depth depth and returns its text.
func (d *decoder) rawValue(depth int) (string, error) {
	d.Peek()
	start := d.I
	if err := d.skip(depth); err != nil {
		return "", err
	}
	return d.S[start:d.I], nil
}

// decodeRaw decodes the text of a valid JSON value into the encoding/json
// generic form with json.Number for numbers.
func decodeRaw(raw string) any {
	if raw == "" {
		return nil
	}
	switch c := raw[0]; {
	case c == '"':
		if simpleString(raw) {
			return raw[1 : len(raw)-1]
		}
	case c == 't':
		return true
	case c == 'f':
		return false
	case c == 'n':
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		return json.Number(raw)
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return v
}

// decodeString decodes the text of a valid JSON value that is a string.
func decodeString(raw string) (string, bool) {
	if raw == "" || raw[0] != '"' {
		return "", false
	}
	if simpleString(raw) {
		return raw[1 : len(raw)-1], true
	}
	var out string
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return "", false
	}
	return out, true
}

// simpleString reports whether a string literal has neither escapes nor
// non-ASCII bytes, so that its value is the text between the quotes.
func simpleString(raw string) bool {
	for i := 1; i < len(raw)-1; i++ {
		if c := raw[i]; c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// add appends a node with its parent and position to the snapshot's
// columns and returns its index.
func (s *Snapshot) add(parent int32, pos int) int32 {
	i := int32(len(s.parent))
	s.obj = append(s.obj, span32{})
	s.id = append(s.id, span32{})
	s.parent = append(s.parent, parent)
	s.end = append(s.end, i)
	s.pos = append(s.pos, int32(pos))
	s.nkids = append(s.nkids, 0)
	s.typ = append(s.typ, 0)
	s.flags = append(s.flags, 0)
	for k := range s.strs {
		if s.strs[k] != nil {
			s.strs[k] = append(s.strs[k], strRef{})
		}
	}
	for k := range s.nums {
		if s.nums[k] != nil {
			s.nums[k] = append(s.nums[k], 0)
		}
	}
	return i
}

// node scans one node object (the decoder is at its "{") and its subtree;
// ok is false when the value is not an object.
func (d *decoder) node(parent int32, pos, level int) (ok bool, err error) {
	if d.Peek() != '{' {
		return false, nil
	}
	nest := d.base + 2*level
	if nest > maxNesting {
		return false, d.tooDeep()
	}
	if d.I > math.MaxUint32-2 {
		return false, d.Errorf("data larger than 4 GiB")
	}
	if err := d.Check(); err != nil {
		return false, err
	}
	s := d.snap
	i := s.add(parent, pos)
	start := d.I
	sawKids := false
	err = d.Object(func(key string) error {
		if key == "children" {
			if sawKids {
				return d.Errorf("%s has two \"children\" keys", s.where(i))
			}
			sawKids = true
			return d.children(i, level)
		}
		d.Peek()
		at := d.I
		raw, err := d.rawValue(nest + 1)
		if err != nil {
			return err
		}
		return d.header(i, key, raw, at-start)
	})
	if err != nil {
		return false, err
	}
	if d.I > math.MaxUint32 {
		return false, d.Errorf("data larger than 4 GiB")
	}
	s.obj[i] = span32{uint32(start), uint32(d.I)}
	s.end[i] = int32(len(s.parent) - 1)
	return true, nil
}

// typeIndex returns the index of a nodeType in the snapshot's type table,
// adding it when new.
func (d *decoder) typeIndex(t string) int32 {
	s := d.snap
	if len(s.types) <= 8 {
		for k, u := range s.types {
			if u == t {
				return int32(k)
			}
		}
	} else if k, ok := d.typeIDs[t]; ok {
		return k
	}
	k := int32(len(s.types))
	s.types = append(s.types, t)
	if len(s.types) > 8 {
		if d.typeIDs == nil {
			d.typeIDs = make(map[string]int32, 16)
			for j, u := range s.types {
				d.typeIDs[u] = int32(j)
			}
		}
		d.typeIDs[t] = k
	}
	return k
}

// header records one attribute of node i in its headers: id, nodeType and
// the cached string and numeric keys. at is where the value's text starts
// within the node's object. A repeated key overrides earlier ones.
func (d *decoder) header(i int32, key, raw string, at int) error {
	s := d.snap
	switch key {
	case "id", "nodeType":
		str := ""
		// plain: the string is printable ASCII without quotes and
		// backslashes (the scan refused control bytes), its own JSON text.
		plain := false
		switch {
		case raw == "null":
		case len(raw) >= 2 && raw[0] == '"' && simpleString(raw):
			str, plain = raw[1:len(raw)-1], true
		default:
			v, ok := decodeString(raw)
			if !ok {
				return fmt.Errorf("invalid data: %s.%s must be a string", s.where(i), key)
			}
			str = v
		}
		if key == "nodeType" {
			s.typ[i] = d.typeIndex(str)
			return nil
		}
		if s.flags[i]&flagIDJSON != 0 {
			s.jsonIDs--
		}
		s.flags[i] &^= flagIDEsc | flagIDJSON
		delete(s.escIDs, i)
		s.id[i] = span32{}
		if str == "" {
			return nil
		}
		if !plain {
			s.flags[i] |= flagIDJSON
			s.jsonIDs++
		}
		if len(raw) == len(str)+2 && raw[1:len(raw)-1] == str {
			lo := uint32(d.I - len(raw) + 1)
			s.id[i] = span32{lo, lo + uint32(len(str))}
			return nil
		}
		if s.escIDs == nil {
			s.escIDs = map[int32]string{}
		}
		s.escIDs[i] = str
		s.flags[i] |= flagIDEsc
		return nil
	}
	for k, name := range numericKeys {
		if name == key {
			s.flags[i] &^= flagNumOK << k
			if c := raw[0]; c == '-' || (c >= '0' && c <= '9') {
				if f, ok := integer(raw); ok && f >= math.MinInt32 && f <= math.MaxInt32 {
					if s.nums[k] == nil {
						s.nums[k] = make([]int32, len(s.parent), cap(s.parent))
					}
					s.nums[k][i] = int32(f)
					s.flags[i] |= flagNumOK << k
				}
			}
			return nil
		}
	}
	for k, name := range stringKeys {
		if name == key {
			s.flags[i] &^= flagStrOK<<k | flagStrSlow<<k
			if raw[0] != '"' {
				return nil
			}
			rel, n := at+1, len(raw)-2
			if !simpleString(raw) || rel > math.MaxUint16 || n > math.MaxUint16 {
				s.flags[i] |= flagStrSlow << k
				return nil
			}
			if s.strs[k] == nil {
				s.strs[k] = make([]strRef, len(s.parent), cap(s.parent))
			}
			s.strs[k][i] = strRef{uint16(rel), uint16(n)}
			s.flags[i] |= flagStrOK << k
			return nil
		}
	}
	return nil
}

// Attributes returns the node's attributes (every key of its JSON object
// but "children", in the object's order, the last of repeated keys).
func (n Node) Attributes() []Attr {
	var out []Attr
	n.members(func(key, raw string) {
		for i := range out {
			if out[i].Key == key {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
		out = append(out, Attr{key, decodeRaw(raw)})
	})
	return out
}

// Attr returns the value of the node's attribute key and whether the node
// has it.
func (n Node) Attr(key string) (any, bool) {
	raw, ok := n.rawAttr(key)
	if !ok {
		return nil, false
	}
	return decodeRaw(raw), true
}

// attr returns the value of an attribute, nil when absent.
func (n Node) attr(key string) any {
	v, _ := n.Attr(key)
	return v
}

// rawAttr returns the JSON text of an attribute's value.
func (n Node) rawAttr(key string) (string, bool) {
	var (
		found string
		ok    bool
	)
	n.members(func(k, raw string) {
		if k == key {
			found, ok = raw, true
		}
	})
	return found, ok
}

// members calls f with each member of the node's object but "children",
// skipping the children's text without scanning it: the children array
// ends after its last element, the last child's object.
func (n Node) members(f func(key, raw string)) {
	s := n.s
	if s == nil {
		return
	}
	o := s.obj[n.i]
	d := &decoder{Scanner: jsonscan.Scanner{S: s.src[o.lo:o.hi], Prefix: "invalid data: "}}
	_ = d.Object(func(key string) error {
		if key == "children" {
			if s.nkids[n.i] == 0 {
				return d.skip(2) // [] or null
			}
			d.I = int(s.obj[s.lastChild(n.i)].hi - o.lo)
			if d.Peek() == ']' {
				d.I++
			}
			return nil
		}
		raw, err := d.rawValue(2) // depths relative to the object
		if err != nil {
			return err
		}
		f(key, raw)
		return nil
	})
}

// children scans node i's "children" array.
func (d *decoder) children(i int32, level int) error {
	s := d.snap
	if d.Peek() == 'n' {
		_, err := d.literal("null", nil)
		return err
	}
	if d.Peek() != '[' {
		return fmt.Errorf("invalid data: %s.children must be an array", s.where(i))
	}
	if d.base+2*level+1 > maxNesting {
		return d.tooDeep()
	}
	var count int32
	err := d.Array(func(k int) error {
		ok, err := d.node(i, k+1, level+1)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("invalid data: %s.children[%d] must be an object", s.where(i), k)
		}
		count++
		return nil
	})
	s.nkids[i] = count
	return err
}

// integer parses a JSON number that holds an integer below 2^53 in
// magnitude; short plain integers take a fast path.
func integer(s string) (float64, bool) {
	if len(s) > 0 && len(s) <= 15 {
		i, neg := 0, false
		if s[0] == '-' {
			i, neg = 1, true
		}
		var v int64
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				goto slow
			}
			v = v*10 + int64(c-'0')
		}
		if neg {
			v = -v
		}
		return float64(v), true
	}
slow:
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		return 0, false
	}
	return f, true
}

// whereLevels is how many levels at each end of a deep node's path where
// spells out.
const whereLevels = 8

// where names node i's place in the data for error messages, as
// root.children[0].children[3]; a path deeper than 2×whereLevels keeps
// its first and last levels and says how many are left out, so that the
// message stays short and linear to build at any depth.
func (s *Snapshot) where(i int32) string {
	var pos []int32 // child positions from node i up to the root
	for j := i; s.parent[j] >= 0; j = s.parent[j] {
		pos = append(pos, s.pos[j]-1)
	}
	var b strings.Builder
	b.WriteString("root")
	level := func(k int) {
		b.WriteString(".children[")
		b.WriteString(strconv.Itoa(int(pos[k])))
		b.WriteByte(']')
	}
	n := len(pos)
	if n <= 2*whereLevels {
		for k := n - 1; k >= 0; k-- {
			level(k)
		}
		return b.String()
	}
	for k := n - 1; k >= n-whereLevels; k-- {
		level(k)
	}
	fmt.Fprintf(&b, "…(%d levels)…", n-2*whereLevels)
	for k := whereLevels - 1; k >= 0; k-- {
		level(k)
	}
	return b.String()
}

// root scans a snapshot's root node and indexes the snapshot.
func (d *decoder) root(name string, base int) (*Snapshot, error) {
	if c := d.Peek(); c != '{' {
		if c == 0 {
			return nil, d.Unexpected("an object")
		}
		return nil, fmt.Errorf("invalid data: %s must be an object", name)
	}
	s := &Snapshot{src: d.S, types: []string{""}}
	d.snap, d.typeIDs, d.base = s, nil, base
	s.reserve(d.sizeHint())
	if _, err := d.node(-1, 1, 0); err != nil {
		return nil, err
	}
	d.last = len(s.parent)
	s.trim()
	s.index()
	return s, nil
}

// sizeHint estimates the number of nodes of the snapshot that starts at
// the scanner: the previous snapshot's, or for the first one the number of
// objects in the rest of the input (every node is one), bounded so that a
// hint never costs more memory than a few times the input's size.
func (d *decoder) sizeHint() int {
	if d.last > 0 {
		return d.last + d.last/8
	}
	rest := d.S[d.I:]
	return min(strings.Count(rest, "{"), len(rest)/16)
}

// reserve gives the node columns room for n nodes.
func (s *Snapshot) reserve(n int) {
	s.obj = make([]span32, 0, n)
	s.id = make([]span32, 0, n)
	s.parent = make([]int32, 0, n)
	s.end = make([]int32, 0, n)
	s.pos = make([]int32, 0, n)
	s.nkids = make([]int32, 0, n)
	s.typ = make([]int32, 0, n)
	s.flags = make([]uint16, 0, n)
}

// trim copies the columns to fit when more than an eighth of their
// capacity is unused.
func (s *Snapshot) trim() {
	n := len(s.parent)
	if cap(s.parent)-n <= n/8 {
		return
	}
	s.obj = slices.Clone(s.obj)
	s.id = slices.Clone(s.id)
	s.parent = slices.Clone(s.parent)
	s.end = slices.Clone(s.end)
	s.pos = slices.Clone(s.pos)
	s.nkids = slices.Clone(s.nkids)
	s.typ = slices.Clone(s.typ)
	s.flags = slices.Clone(s.flags)
	for k := range s.strs {
		if s.strs[k] != nil {
			s.strs[k] = slices.Clone(s.strs[k])
		}
	}
	for k := range s.nums {
		if s.nums[k] != nil {
			s.nums[k] = slices.Clone(s.nums[k])
		}
	}
}

// index builds the type index and the root kinds of each type, and trims
// the columns' spare capacity.
func (s *Snapshot) index() {
	s.typeKind = make([]uint8, len(s.types))
	for k, t := range s.types {
		switch strings.TrimPrefix(t, "^") {
		case "seq":
			s.typeKind[k] = kindSeq
		case "sys":
			s.typeKind[k] = kindSys
		case "ah":
			s.typeKind[k] = kindAh
		}
	}
	counts := make([]int32, len(s.types))
	for _, t := range s.typ {
		counts[t]++
	}
	all := make([]int32, len(s.typ))
	lists := make([][]int32, len(s.types))
	off := 0
	for k, c := range counts {
		lists[k] = all[off : off : off+int(c)]
		off += int(c)
	}
	for i, t := range s.typ {
		lists[t] = append(lists[t], int32(i))
	}
	s.byType = make(map[string][]int32, len(s.types))
	for k, t := range s.types {
		if len(lists[k]) > 0 {
			s.byType[t] = lists[k]
		}
	}
}
