// Package pact evaluates PACT context selectors (v1) and context queries
// (v2) over snapshot data: a list of node ids for single-snapshot queries and
// a RangeDiffLatestResult for snapshot ranges.
package pact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/jsonscan"
)

// Node is one node of a context tree. Every key of the node's JSON object
// other than "children" is an attribute, read with Attr (values as decoded
// JSON, json.Number for numbers).
type Node struct {
	ID       string
	NodeType string
	Children []*Node

	raw    string // the node's JSON object
	kidsLo int32  // offsets in raw of its "children" value, when it has one
	kidsHi int32
	parent *Node
	pre    int32                   // pre-order number within its snapshot
	end    int32                   // last pre-order number of its subtree
	pos    int32                   // 1-based position among its parent's children
	turn   int32                   // turn depth for direct children of a ^seq node (newest = 1), else 0
	strOK  uint8                   // bit i set when strs[i] locates the string header stringKeys[i]
	numOK  uint8                   // bit i set when nums[i] holds numericKeys[i], an integer that fits in an int32
	strEsc uint8                   // bit i set when header stringKeys[i] is a string with escapes (not cached)
	strs   [len(stringKeys)]span32 // where in raw the string headers' text is
	nums   [len(numericKeys)]int32
}

// span32 locates text inside a node's raw JSON object.
type span32 struct{ lo, hi int32 }

// numericKeys are the attributes whose numbers are parsed once at load
// time when they are integers within the int32 range (ttl, offset and
// priority always are in practice); other values take the full
// comparison path.
var numericKeys = [...]string{"offset", "ttl", "priority", "cad"}

// stringKeys are the string headers located once at load time.
var stringKeys = [...]string{"role", "kind", "key"}

// str returns the cached string header stringKeys[i] ("" when absent).
func (n *Node) str(i int) string {
	sp := n.strs[i]
	return n.raw[sp.lo:sp.hi]
}

// cachedStr returns a string header located at load time. known is false
// when key is not a cached header or its value has escapes; ok reports
// whether the node has key as a string.
func (n *Node) cachedStr(key string) (v string, ok, known bool) {
	for i, k := range stringKeys {
		if k == key {
			if n.strEsc&(1<<i) != 0 {
				return "", false, false
			}
			return n.str(i), n.strOK&(1<<i) != 0, true
		}
	}
	return "", false, false
}

// keyAttr returns the node's key attribute when it is a string.
func (n *Node) keyAttr() (string, bool) {
	if v, ok, known := n.cachedStr("key"); known {
		return v, ok
	}
	s, ok := n.attr("key").(string)
	return s, ok
}

// cachedNum returns the pre-parsed number of a numeric attribute.
func (n *Node) cachedNum(key string) (float64, bool, bool) {
	for i, k := range numericKeys {
		if k == key {
			return float64(n.nums[i]), n.numOK&(1<<i) != 0, true
		}
	}
	return 0, false, false
}

// Snapshot is one context tree with its cycle number.
type Snapshot struct {
	Cycle int64
	Root  *Node

	nodes  []*Node            // pre-order
	byType map[string][]*Node // pre-order

	bufs   sync.Pool // *[]*Node scratch sets reused across evaluations
	idOnce sync.Once
	byID   map[string]*Node // first node with each id, built on first use
}

// Data is loaded snapshot data: the snapshots sorted by cycle, oldest first.
type Data struct {
	Snapshots []*Snapshot
}

// Nodes returns the snapshot's nodes in pre-order (document order).
func (s *Snapshot) Nodes() []*Node { return s.nodes }

// getBuf returns an empty scratch set.
func (s *Snapshot) getBuf() []*Node {
	if b, ok := s.bufs.Get().(*[]*Node); ok {
		return (*b)[:0]
	}
	return make([]*Node, 0, 256)
}

// putBuf keeps a scratch set for a later evaluation. The set's stale
// pointers keep nothing alive: they point into the snapshot itself.
func (s *Snapshot) putBuf(b []*Node) {
	s.bufs.Put(&b)
}

// Lookup returns the node with the given id, or nil.
func (s *Snapshot) Lookup(id string) *Node { return s.ids()[id] }

// ids returns the id index, building it on first use: loading does not pay
// for it, and every later lookup is O(1). It is safe for concurrent use.
func (s *Snapshot) ids() map[string]*Node {
	s.idOnce.Do(func() {
		s.byID = make(map[string]*Node, len(s.nodes))
		for _, n := range s.nodes {
			if n.ID != "" {
				if _, dup := s.byID[n.ID]; !dup {
					s.byID[n.ID] = n
				}
			}
		}
	})
	return s.byID
}

// LoadFile reads snapshot data from a regular file of any size.
func LoadFile(path string) (*Data, error) { return LoadFileFrom(files.New(0, ""), path) }

// LoadFileFrom reads snapshot data from a file opened through r, which
// refuses anything but a regular file within its limits.
func LoadFileFrom(r *files.Reader, path string) (*Data, error) {
	b, err := r.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	if len(b) == 0 {
		return LoadString("")
	}
	// The buffer is ours and is never written again, so the nodes can
	// keep substrings of it without a copy of the whole input (for a large
	// file the copy, and the page faults of its fresh memory, are a large
	// part of the load).
	return LoadString(unsafe.String(&b[0], len(b)))
}

// Load reads snapshot data from r.
func Load(r io.Reader) (*Data, error) {
	var sb strings.Builder
	if _, err := io.Copy(&sb, r); err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	return LoadString(sb.String())
}

// LoadBytes decodes snapshot data: either {"root": {...}} (one snapshot, the
// current one) or {"snapshots": [{"cycle": N, "root": {...}}, ...]}.
func LoadBytes(b []byte) (*Data, error) { return LoadString(string(b)) }

// LoadString is LoadBytes for data already in a string; the loaded nodes
// keep the text of their JSON objects as substrings of src.
func LoadString(src string) (*Data, error) {
	d := &decoder{Scanner: jsonscan.Scanner{S: src, Prefix: "invalid data: "}}
	if c := d.Peek(); c != '{' {
		if c == 0 {
			return nil, d.Unexpected("a JSON object")
		}
		if c == 'n' {
			if _, err := d.literal("null", nil); err != nil {
				return nil, err
			}
		}
		return nil, errors.New("invalid data: expected a JSON object with \"root\" or \"snapshots\"")
	}
	var (
		root, hasSnaps bool
		rootSnap       *Snapshot
		snaps          []*Snapshot
		topCycle       any
	)
	seen := map[int64]bool{}
	err := d.Object(func(key string) error {
		switch key {
		case "root":
			if root {
				return d.Errorf("two \"root\" keys")
			}
			root = true
			s, err := d.root("root")
			rootSnap = s
			return err
		case "snapshots":
			if hasSnaps {
				return d.Errorf("two \"snapshots\" keys")
			}
			hasSnaps = true
			if d.Peek() != '[' {
				if err := d.skip(0); err != nil {
					return err
				}
				return errors.New("invalid data: \"snapshots\" must be an array")
			}
			return d.Array(func(i int) error {
				if d.Peek() != '{' {
					if err := d.skip(0); err != nil {
						return err
					}
					return fmt.Errorf("invalid data: snapshots[%d] is not an object", i)
				}
				var (
					s     *Snapshot
					cycle any
				)
				err := d.Object(func(key string) error {
					switch key {
					case "root":
						var err error
						s, err = d.root(fmt.Sprintf("snapshots[%d].root", i))
						return err
					case "cycle":
						raw, err := d.rawValue()
						cycle = decodeRaw(raw)
						return err
					}
					return d.skip(0)
				})
				if err != nil {
					return err
				}
				cyc, ok := intOf(cycle)
				if !ok {
					return fmt.Errorf("invalid data: snapshots[%d] needs an integer \"cycle\"", i)
				}
				if seen[cyc] {
					return fmt.Errorf("invalid data: two snapshots with cycle %d", cyc)
				}
				seen[cyc] = true
				if s == nil {
					return fmt.Errorf("invalid data: snapshots[%d].root must be an object", i)
				}
				s.Cycle = cyc
				snaps = append(snaps, s)
				return nil
			})
		case "cycle":
			raw, err := d.rawValue()
			topCycle = decodeRaw(raw)
			return err
		}
		return d.skip(0)
	})
	if err != nil {
		return nil, err
	}
	if d.Peek(); d.I < len(d.S) {
		return nil, d.Errorf("data after the top-level object")
	}
	out := &Data{}
	if hasSnaps {
		if len(snaps) == 0 {
			return nil, errors.New("invalid data: \"snapshots\" is empty")
		}
		sort.Slice(snaps, func(i, j int) bool { return snaps[i].Cycle < snaps[j].Cycle })
		out.Snapshots = snaps
		return out, nil
	}
	if rootSnap == nil {
		return nil, errors.New("invalid data: expected a JSON object with \"root\" or \"snapshots\"")
	}
	if c, ok := intOf(topCycle); ok {
		rootSnap.Cycle = c
	} else if v, _ := rootSnap.Root.Attr("cycle"); v != nil {
		if c, ok := intOf(v); ok {
			rootSnap.Cycle = c
		}
	}
	out.Snapshots = []*Snapshot{rootSnap}
	return out, nil
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

const maxTreeDepth = 100000

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
	if v, ok := n.Attr("content_hash"); ok {
		return v
	}
	c, ok := n.Attr("content")
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
