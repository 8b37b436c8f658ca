// Package pact evaluates PACT context selectors (v1) and context queries
// (v2) over snapshot data: a list of node ids for single-snapshot queries and
// a RangeDiffLatestResult for snapshot ranges.
package pact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
)

// Node is one node of a context tree. Every key of the node's JSON object
// other than "children" is an attribute; Attrs holds them as decoded JSON
// (json.Number for numbers).
type Node struct {
	ID       string
	NodeType string
	Attrs    map[string]any
	Children []*Node

	parent *Node
	pre    int                     // pre-order number within its snapshot
	end    int                     // last pre-order number of its subtree
	pos    int                     // 1-based position among its parent's children
	turn   int                     // turn depth for direct children of a ^seq node (newest = 1), else 0
	strs   [len(stringKeys)]string // role, kind, key when they are strings
	strOK  uint8
	nums   [len(numericKeys)]float64
	numOK  uint8 // bit i set when nums[i] holds the parsed numericKeys[i]
}

// numericKeys are the attributes whose numbers are parsed once at load time.
var numericKeys = [...]string{"offset", "ttl", "priority", "cycle", "created_at_ns", "cad", "creation_index"}

// stringKeys are the string headers copied out of Attrs at load time.
var stringKeys = [...]string{"role", "kind", "key"}

// cachedStr returns a pre-extracted string header.
func (n *Node) cachedStr(key string) (string, bool, bool) {
	for i, k := range stringKeys {
		if k == key {
			return n.strs[i], n.strOK&(1<<i) != 0, true
		}
	}
	return "", false, false
}

// cachedNum returns the pre-parsed number of a numeric attribute.
func (n *Node) cachedNum(key string) (float64, bool, bool) {
	for i, k := range numericKeys {
		if k == key {
			return n.nums[i], n.numOK&(1<<i) != 0, true
		}
	}
	return 0, false, false
}

// Snapshot is one context tree with its cycle number.
type Snapshot struct {
	Cycle int64
	Root  *Node

	nodes  []*Node            // pre-order
	byID   map[string]*Node   // first node with each id
	byType map[string][]*Node // pre-order
}

// Data is loaded snapshot data: the snapshots sorted by cycle, oldest first.
type Data struct {
	Snapshots []*Snapshot
}

// Nodes returns the snapshot's nodes in pre-order (document order).
func (s *Snapshot) Nodes() []*Node { return s.nodes }

// Lookup returns the node with the given id, or nil.
func (s *Snapshot) Lookup(id string) *Node { return s.byID[id] }

// LoadFile reads snapshot data from a file.
func LoadFile(path string) (*Data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	return LoadBytes(b)
}

// Load reads snapshot data from r.
func Load(r io.Reader) (*Data, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	return LoadBytes(b)
}

// LoadBytes decodes snapshot data: either {"root": {...}} (one snapshot, the
// current one) or {"snapshots": [{"cycle": N, "root": {...}}, ...]}.
func LoadBytes(b []byte) (*Data, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("invalid data: %w", err)
	}
	if top == nil {
		return nil, errors.New("invalid data: expected a JSON object with \"root\" or \"snapshots\"")
	}
	d := &Data{}
	if raw, ok := top["snapshots"]; ok {
		list, ok := raw.([]any)
		if !ok {
			return nil, errors.New("invalid data: \"snapshots\" must be an array")
		}
		seen := map[int64]bool{}
		for i, e := range list {
			obj, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("invalid data: snapshots[%d] is not an object", i)
			}
			cyc, ok := intOf(obj["cycle"])
			if !ok {
				return nil, fmt.Errorf("invalid data: snapshots[%d] needs an integer \"cycle\"", i)
			}
			if seen[cyc] {
				return nil, fmt.Errorf("invalid data: two snapshots with cycle %d", cyc)
			}
			seen[cyc] = true
			s, err := buildSnapshot(obj["root"], fmt.Sprintf("snapshots[%d].root", i))
			if err != nil {
				return nil, err
			}
			s.Cycle = cyc
			d.Snapshots = append(d.Snapshots, s)
		}
		if len(d.Snapshots) == 0 {
			return nil, errors.New("invalid data: \"snapshots\" is empty")
		}
		sort.Slice(d.Snapshots, func(i, j int) bool { return d.Snapshots[i].Cycle < d.Snapshots[j].Cycle })
		return d, nil
	}
	raw, ok := top["root"]
	if !ok {
		return nil, errors.New("invalid data: expected a JSON object with \"root\" or \"snapshots\"")
	}
	s, err := buildSnapshot(raw, "root")
	if err != nil {
		return nil, err
	}
	if c, ok := intOf(top["cycle"]); ok {
		s.Cycle = c
	} else if c, ok := intOf(attrOf(s.Root, "cycle")); ok {
		s.Cycle = c
	}
	d.Snapshots = []*Snapshot{s}
	return d, nil
}

func attrOf(n *Node, k string) any {
	if n == nil {
		return nil
	}
	return n.Attrs[k]
}

func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		return i, err == nil
	case float64:
		return int64(x), float64(int64(x)) == x
	}
	return 0, false
}

// buildSnapshot converts a decoded root object into an indexed snapshot.
func buildSnapshot(raw any, where string) (*Snapshot, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("invalid data: %s must be an object", where)
	}
	s := &Snapshot{byID: map[string]*Node{}, byType: map[string][]*Node{}}
	root, err := s.build(obj, nil, 1, where, 0)
	if err != nil {
		return nil, err
	}
	s.Root = root
	return s, nil
}

const maxTreeDepth = 100000

func (s *Snapshot) build(obj map[string]any, parent *Node, pos int, where string, level int) (*Node, error) {
	if level > maxTreeDepth {
		return nil, fmt.Errorf("invalid data: %s: tree deeper than %d levels", where, maxTreeDepth)
	}
	n := &Node{Attrs: obj, parent: parent, pos: pos, pre: len(s.nodes)}
	if v, ok := obj["id"]; ok && v != nil {
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("invalid data: %s.id must be a string", where)
		}
		n.ID = str
	}
	if v, ok := obj["nodeType"]; ok && v != nil {
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("invalid data: %s.nodeType must be a string", where)
		}
		n.NodeType = str
	}
	for i, k := range numericKeys {
		if v, ok := obj[k].(json.Number); ok {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				n.nums[i] = f
				n.numOK |= 1 << i
			}
		}
	}
	for i, k := range stringKeys {
		if v, ok := obj[k].(string); ok {
			n.strs[i] = v
			n.strOK |= 1 << i
		}
	}
	s.nodes = append(s.nodes, n)
	if n.ID != "" {
		if _, dup := s.byID[n.ID]; !dup {
			s.byID[n.ID] = n
		}
	}
	s.byType[n.NodeType] = append(s.byType[n.NodeType], n)
	var kids []any
	if v, ok := obj["children"]; ok && v != nil {
		kids, ok = v.([]any)
		if !ok {
			return nil, fmt.Errorf("invalid data: %s.children must be an array", where)
		}
	}
	delete(obj, "children")
	for i, k := range kids {
		ko, ok := k.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("invalid data: %s.children[%d] must be an object", where, i)
		}
		c, err := s.build(ko, n, i+1, where+".children["+strconv.Itoa(i)+"]", level+1)
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, c)
	}
	if isRoot(n, "seq") {
		for i, c := range n.Children {
			c.turn = len(n.Children) - i
		}
	}
	n.end = len(s.nodes) - 1
	return n, nil
}

// isRoot reports whether n is the region root ^name: its nodeType is "^name"
// or "name"; ^root also matches the tree's top node.
func isRoot(n *Node, name string) bool {
	if n.NodeType == "^"+name || n.NodeType == name {
		return true
	}
	return name == "root" && n.parent == nil
}

// ContentHash returns the node's content_hash attribute, or when absent and
// the node has content, "sha256:" followed by the hex SHA-256 of the content
// (the string's bytes, or the compact JSON encoding of non-string content).
func (n *Node) ContentHash() any {
	if v, ok := n.Attrs["content_hash"]; ok {
		return v
	}
	c, ok := n.Attrs["content"]
	if !ok || c == nil {
		return nil
	}
	sum := sha256.Sum256(contentBytes(c))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func contentBytes(c any) []byte {
	if s, ok := c.(string); ok {
		return []byte(s)
	}
	b, _ := json.Marshal(c)
	return b
}
