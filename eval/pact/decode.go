package pact

import (
	"encoding/json"
	"fmt"
	"math"
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

// maxValueDepth bounds the nesting of attribute values (objects and arrays
// inside a node's attributes), as encoding/json does.
const maxValueDepth = 10000

// decoder is a JSON scanner specialised for snapshot data. It builds nodes
// directly while it scans, without an intermediate map per object: a node
// keeps the text of its JSON object (a substring of one copy of the input)
// and the headers the evaluator reads most, and decodes other attributes
// when they are read; nodes and child lists are carved out of shared slabs.
// Values it accepts and rejects are those of encoding/json, except that
// duplicate "children", "root" and "snapshots" keys and data after the
// top-level value are errors.
type decoder struct {
	jsonscan.Scanner

	nodes []Node  // slab for nodes
	ptrs  []*Node // slab for child lists
	kids  []*Node // stack of children being collected
	snap  *Snapshot

	lastType string   // type of the last indexed node
	lastList *[]*Node // its pending byType list
}

// number scans a JSON number and returns its text.
func (d *decoder) number() (json.Number, error) {
	start := d.I
	s := d.S
	i := d.I
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
		d.I = i
		return "", d.Unexpected("a digit")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.I = i
			return "", d.Unexpected("a digit after the decimal point")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.I = i
			return "", d.Unexpected("a digit in the exponent")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	d.I = i
	return json.Number(s[start:i]), nil
}

func (d *decoder) literal(word string, v any) (any, error) {
	if len(d.S)-d.I >= len(word) && d.S[d.I:d.I+len(word)] == word {
		d.I += len(word)
		return v, nil
	}
	return nil, d.Errorf("invalid literal, expected %s", word)
}

// skip scans over any JSON value, validating it.
func (d *decoder) skip(depth int) error {
	if depth > maxValueDepth {
		return d.Errorf("value nested deeper than %d levels", maxValueDepth)
	}
	switch c := d.Peek(); {
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
		_, err := d.number()
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

// rawValue scans over a value and returns its text.
func (d *decoder) rawValue() (string, error) {
	d.Peek()
	start := d.I
	if err := d.skip(0); err != nil {
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

// newNode returns a zeroed node from the slab.
func (d *decoder) newNode() *Node {
	if len(d.nodes) == cap(d.nodes) {
		d.nodes = make([]Node, 0, 1024)
	}
	d.nodes = d.nodes[:len(d.nodes)+1]
	return &d.nodes[len(d.nodes)-1]
}

// carveNodes copies the top of the children stack into a slab-backed slice.
func (d *decoder) carveNodes(from int) []*Node {
	k := d.kids[from:]
	if len(k) == 0 {
		return nil
	}
	if len(k) > cap(d.ptrs)-len(d.ptrs) {
		if len(k) > 1024 {
			return append([]*Node(nil), k...)
		}
		d.ptrs = make([]*Node, 0, 8192)
	}
	n := len(d.ptrs)
	d.ptrs = append(d.ptrs, k...)
	return d.ptrs[n:len(d.ptrs):len(d.ptrs)]
}

// node scans one node object (the decoder is at its "{") and its subtree.
func (d *decoder) node(parent *Node, pos, level int) (*Node, error) {
	if level > maxTreeDepth {
		return nil, d.Errorf("tree deeper than %d levels", maxTreeDepth)
	}
	if d.Peek() != '{' {
		return nil, nil
	}
	s := d.snap
	n := d.newNode()
	n.parent, n.pos, n.pre = parent, int32(pos), int32(len(s.nodes))
	s.nodes = append(s.nodes, n)
	start := d.I
	sawKids := false
	err := d.Object(func(key string) error {
		if key == "children" {
			if sawKids {
				return d.Errorf("%s has two \"children\" keys", where(n))
			}
			sawKids = true
			d.Peek()
			n.kidsLo = int32(d.I - start)
			err := d.children(n, level)
			n.kidsHi = int32(d.I - start)
			return err
		}
		d.Peek()
		at := d.I - start
		raw, err := d.rawValue()
		if err != nil {
			return err
		}
		return n.header(key, raw, at)
	})
	if err != nil {
		return nil, err
	}
	n.raw = d.S[start:d.I]
	if isRoot(n, "seq") {
		for i, c := range n.Children {
			c.turn = int32(len(n.Children) - i)
		}
	}
	n.end = int32(len(s.nodes) - 1)
	return n, nil
}

// header records one attribute in the node's headers: id, nodeType and the
// cached string and numeric keys. A repeated key overrides earlier ones.
func (n *Node) header(key, raw string, at int) error {
	switch key {
	case "id", "nodeType":
		str := ""
		if raw != "null" {
			v, ok := decodeString(raw)
			if !ok {
				return fmt.Errorf("invalid data: %s.%s must be a string", where(n), key)
			}
			str = v
		}
		if key == "id" {
			n.ID = str
		} else {
			n.NodeType = str
		}
		return nil
	}
	for i, k := range numericKeys {
		if k == key {
			n.numOK &^= 1 << i
			if c := raw[0]; c == '-' || (c >= '0' && c <= '9') {
				if f, ok := integer(raw); ok && f >= math.MinInt32 && f <= math.MaxInt32 {
					n.nums[i] = int32(f)
					n.numOK |= 1 << i
				}
			}
			return nil
		}
	}
	for i, k := range stringKeys {
		if k == key {
			n.strOK &^= 1 << i
			n.strEsc &^= 1 << i
			if raw[0] == '"' {
				if simpleString(raw) {
					n.strs[i] = span32{int32(at + 1), int32(at + len(raw) - 1)}
					n.strOK |= 1 << i
				} else {
					n.strEsc |= 1 << i
				}
			}
			return nil
		}
	}
	return nil
}

// Attributes returns the node's attributes (every key of its JSON object
// but "children", in the object's order, the last of repeated keys).
func (n *Node) Attributes() []Attr {
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
func (n *Node) Attr(key string) (any, bool) {
	raw, ok := n.rawAttr(key)
	if !ok {
		return nil, false
	}
	return decodeRaw(raw), true
}

// attr returns the value of an attribute, nil when absent.
func (n *Node) attr(key string) any {
	v, _ := n.Attr(key)
	return v
}

// rawAttr returns the JSON text of an attribute's value.
func (n *Node) rawAttr(key string) (string, bool) {
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
// skipping the children's text without scanning it.
func (n *Node) members(f func(key, raw string)) {
	if n.raw == "" {
		return
	}
	d := &decoder{Scanner: jsonscan.Scanner{S: n.raw, Prefix: "invalid data: "}}
	_ = d.Object(func(key string) error {
		if key == "children" && n.kidsHi > n.kidsLo {
			d.I = int(n.kidsHi)
			return nil
		}
		raw, err := d.rawValue()
		if err != nil {
			return err
		}
		f(key, raw)
		return nil
	})
}

// children scans a node's "children" array.
func (d *decoder) children(n *Node, level int) error {
	if d.Peek() == 'n' {
		_, err := d.literal("null", nil)
		return err
	}
	if d.Peek() != '[' {
		return fmt.Errorf("invalid data: %s.children must be an array", where(n))
	}
	kidBase := len(d.kids)
	err := d.Array(func(i int) error {
		c, err := d.node(n, i+1, level+1)
		if err != nil {
			return err
		}
		if c == nil {
			return fmt.Errorf("invalid data: %s.children[%d] must be an object", where(n), i)
		}
		d.kids = append(d.kids, c)
		return nil
	})
	if err != nil {
		return err
	}
	n.Children = d.carveNodes(kidBase)
	d.kids = d.kids[:kidBase]
	return nil
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

// where names a node's place in the data for error messages.
func where(n *Node) string {
	if n.parent == nil {
		return "root"
	}
	return where(n.parent) + ".children[" + strconv.Itoa(int(n.pos)-1) + "]"
}

// root scans a snapshot's root node and indexes the snapshot.
func (d *decoder) root(name string) (*Snapshot, error) {
	if c := d.Peek(); c != '{' {
		if c == 0 {
			return nil, d.Unexpected("an object")
		}
		return nil, fmt.Errorf("invalid data: %s must be an object", name)
	}
	s := &Snapshot{}
	d.snap = s
	root, err := d.node(nil, 1, 0)
	if err != nil {
		return nil, err
	}
	s.Root = root
	for _, n := range s.nodes {
		d.index(n)
	}
	d.flush()
	return s, nil
}

// index records a node in its snapshot's type index; consecutive nodes
// of one type (the common case) share one map lookup.
func (d *decoder) index(n *Node) {
	s := d.snap
	if s.byType == nil {
		s.byType = map[string][]*Node{}
	}
	if d.lastType != n.NodeType || d.lastList == nil {
		if d.lastList != nil {
			s.byType[d.lastType] = *d.lastList
		}
		l := s.byType[n.NodeType]
		d.lastType, d.lastList = n.NodeType, &l
	}
	*d.lastList = append(*d.lastList, n)
}

// flush stores the pending type list.
func (d *decoder) flush() {
	if d.lastList != nil {
		d.snap.byType[d.lastType] = *d.lastList
		d.lastList = nil
	}
}
