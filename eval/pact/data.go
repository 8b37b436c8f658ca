// Package pact evaluates PACT context selectors (v1) and context queries
// (v2) over snapshot data: a list of node ids for single-snapshot queries and
// a RangeDiffLatestResult for snapshot ranges.
package pact

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/jsonscan"
)

// Snapshot is one context tree with its cycle number.
//
// Its nodes are stored in columns: node i (its pre-order number, so that
// document order is index order) has its JSON object at obj[i] in src, its
// parent at parent[i], the last node of its subtree at end[i], and so on.
// A node costs about 40 bytes of columns plus 4 for each cached header it
// has, instead of a struct and the pointers to it; the text of its JSON
// object stays in src, and attributes other than the headers are decoded
// from it when an evaluation reads them.
type Snapshot struct {
	Cycle int64

	src    string                    // the text the nodes' JSON objects are substrings of
	obj    []span32                  // node i's JSON object: src[obj[i].lo:obj[i].hi]
	id     []span32                  // its id's text in src (empty when absent, null or escaped)
	parent []int32                   // its parent, -1 for the root
	end    []int32                   // the last node of its subtree
	pos    []int32                   // 1-based position among its parent's children
	nkids  []int32                   // number of children
	typ    []int32                   // nodeType, an index into types
	flags  []uint16                  // cached-header bits (flag* constants)
	strs   [len(stringKeys)][]strRef // string headers, nil until a node has one
	nums   [len(numericKeys)][]int32 // numeric headers, nil until a node has one

	types    []string           // nodeType names by type index ("" for none)
	typeKind []uint8            // root kinds (kind* bits) of each type
	byType   map[string][]int32 // nodes of each nodeType, in pre-order
	escIDs   map[int32]string   // ids with escapes, decoded
	jsonIDs  int                // nodes whose id is not printable ASCII without quotes and backslashes (flagIDJSON)

	bufs sync.Pool                        // *[]int32 scratch sets reused across evaluations
	idMu sync.Mutex                       // held while the id index is built
	byID atomic.Pointer[map[string]int32] // first node with each id, built on first use

	allOnce sync.Once
	allIdx  []int32 // every node, built on first use
}

// span32 locates text in a snapshot's source.
type span32 struct{ lo, hi uint32 }

// strRef locates a cached string header's text relative to its node's
// object.
type strRef struct{ rel, n uint16 }

// Bits of Snapshot.flags: for header stringKeys[k], flagStrOK<<k says the
// value is cached in strs[k] and flagStrSlow<<k that the node has the key
// with a value that is not (escapes, or text too far into the object);
// for numericKeys[k], flagNumOK<<k says nums[k] holds its value, an
// integer within the int32 range; flagIDEsc says the id is in escIDs;
// flagIDJSON says the id is not printable ASCII without quotes and
// backslashes, the text of its JSON string.
const (
	flagStrOK   = 1 << 0
	flagStrSlow = 1 << len(stringKeys)
	flagNumOK   = 1 << (2 * len(stringKeys))
	flagIDEsc   = 1 << (2*len(stringKeys) + len(numericKeys))
	flagIDJSON  = flagIDEsc << 1
)

// Root kinds of a nodeType: "^seq" and "seq" are the ^seq region root, and
// so on (isRoot).
const (
	kindSeq = 1 << iota
	kindSys
	kindAh
)

// numericKeys are the attributes whose numbers are parsed once at load
// time when they are integers within the int32 range (ttl, offset and
// priority always are in practice); other values take the full
// comparison path.
var numericKeys = [...]string{"offset", "ttl", "priority", "cad"}

// stringKeys are the string headers located once at load time.
var stringKeys = [...]string{"role", "kind", "key"}

// Node is one node of a snapshot: the snapshot and the node's pre-order
// number. The zero Node is no node. Every key of the node's JSON object
// other than "children" is an attribute, read with Attr (values as
// decoded JSON, json.Number for numbers).
type Node struct {
	s *Snapshot
	i int32
}

// Valid reports whether n is a node (not the zero Node).
func (n Node) Valid() bool { return n.s != nil }

// ID returns the node's id ("" when it has none, or for the zero Node).
func (n Node) ID() string {
	if n.s == nil {
		return ""
	}
	return n.s.nodeID(n.i)
}

// NodeType returns the node's nodeType ("" when it has none, or for the
// zero Node).
func (n Node) NodeType() string {
	if n.s == nil {
		return ""
	}
	return n.s.types[n.s.typ[n.i]]
}

// Parent returns the node's parent; ok is false for the root and the zero
// Node.
func (n Node) Parent() (p Node, ok bool) {
	if n.s == nil {
		return Node{}, false
	}
	if j := n.s.parent[n.i]; j >= 0 {
		return Node{n.s, j}, true
	}
	return Node{}, false
}

// NumChildren returns the number of the node's children.
func (n Node) NumChildren() int {
	if n.s == nil {
		return 0
	}
	return int(n.s.nkids[n.i])
}

// Children returns the node's children in order.
func (n Node) Children() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		if n.s == nil {
			return
		}
		for c := range n.s.children(n.i) {
			if !yield(Node{n.s, c}) {
				return
			}
		}
	}
}

// Depth returns the number of the node's ancestors (0 for the root).
func (n Node) Depth() int {
	if n.s == nil {
		return 0
	}
	d := 0
	for p := n.s.parent[n.i]; p >= 0; p = n.s.parent[p] {
		d++
	}
	return d
}

// children yields the indexes of node i's children: the first is i+1 and
// each next one follows the previous one's subtree.
func (s *Snapshot) children(i int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		c := i + 1
		for k := s.nkids[i]; k > 0; k-- {
			if !yield(c) {
				return
			}
			c = s.end[c] + 1
		}
	}
}

// lastChild returns node i's last child; i must have children.
func (s *Snapshot) lastChild(i int32) int32 {
	c := i + 1
	for k := s.nkids[i]; k > 1; k-- {
		c = s.end[c] + 1
	}
	return c
}

// nodeID returns node i's id.
func (s *Snapshot) nodeID(i int32) string {
	if s.flags[i]&flagIDEsc != 0 {
		return s.escIDs[i]
	}
	sp := s.id[i]
	return s.src[sp.lo:sp.hi]
}

// typeName returns node i's nodeType.
func (s *Snapshot) typeName(i int32) string { return s.types[s.typ[i]] }

// kind returns the root kinds of node i's nodeType.
func (s *Snapshot) kind(i int32) uint8 { return s.typeKind[s.typ[i]] }

// turn returns node i's turn depth when it is a direct child of a ^seq
// node (the newest turn is 1), else 0.
func (s *Snapshot) turn(i int32) int32 {
	if p := s.parent[i]; p >= 0 && s.kind(p)&kindSeq != 0 {
		return s.nkids[p] - s.pos[i] + 1
	}
	return 0
}

// str returns the cached string header stringKeys[k] of node i; the node
// must have it cached.
func (s *Snapshot) str(i int32, k int) string {
	r := s.strs[k][i]
	lo := s.obj[i].lo + uint32(r.rel)
	return s.src[lo : lo+uint32(r.n)]
}

// cachedStr returns a string header located at load time. known is false
// when key is not a cached header or the node's value is not cached; ok
// reports whether the node has key as a string.
func (s *Snapshot) cachedStr(i int32, key string) (v string, ok, known bool) {
	for k, name := range stringKeys {
		if name == key {
			f := s.flags[i]
			if f&(flagStrSlow<<k) != 0 {
				return "", false, false
			}
			if f&(flagStrOK<<k) == 0 {
				return "", false, true
			}
			return s.str(i, k), true, true
		}
	}
	return "", false, false
}

// keyAttr returns node i's key attribute when it is a string.
func (s *Snapshot) keyAttr(i int32) (string, bool) {
	if v, ok, known := s.cachedStr(i, "key"); known {
		return v, ok
	}
	str, ok := Node{s, i}.attr("key").(string)
	return str, ok
}

// cachedNum returns the pre-parsed number of a numeric attribute.
func (s *Snapshot) cachedNum(i int32, key string) (float64, bool, bool) {
	for k, name := range numericKeys {
		if name == key {
			if s.flags[i]&(flagNumOK<<k) == 0 {
				return 0, false, true
			}
			return float64(s.nums[k][i]), true, true
		}
	}
	return 0, false, false
}

// Data is loaded snapshot data: the snapshots sorted by cycle, oldest first.
type Data struct {
	Snapshots []*Snapshot
}

// Root returns the snapshot's root node.
func (s *Snapshot) Root() Node { return Node{s, 0} }

// Len returns the number of the snapshot's nodes.
func (s *Snapshot) Len() int { return len(s.parent) }

// Node returns the snapshot's i-th node in pre-order (document order),
// 0 ≤ i < Len().
func (s *Snapshot) Node(i int) Node { return Node{s, int32(i)} }

// getBuf returns an empty scratch set.
func (s *Snapshot) getBuf() []int32 {
	if b, ok := s.bufs.Get().(*[]int32); ok {
		return (*b)[:0]
	}
	return make([]int32, 0, 256)
}

// putBuf keeps a scratch set for a later evaluation.
func (s *Snapshot) putBuf(b []int32) {
	s.bufs.Put(&b)
}

// Lookup returns the first node with the given id, or the zero Node when
// there is none.
func (s *Snapshot) Lookup(id string) Node {
	m, _ := s.ids(context.Background())
	i, ok := m[id]
	if !ok {
		return Node{}
	}
	return Node{s, i}
}

// ids returns the id index, building it on first use: loading does not pay
// for it, and every later lookup is O(1). It is safe for concurrent use.
// Building it looks at ctx every 4,096 nodes; when ctx is done it returns
// nil and ctx's error and keeps nothing, so a later call builds it again.
func (s *Snapshot) ids(ctx context.Context) (map[string]int32, error) {
	if m := s.byID.Load(); m != nil {
		return *m, nil
	}
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if m := s.byID.Load(); m != nil {
		return *m, nil
	}
	m := make(map[string]int32, len(s.parent))
	for i := range int32(len(s.parent)) {
		if i&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if id := s.nodeID(i); id != "" {
			if _, dup := m[id]; !dup {
				m[id] = i
			}
		}
	}
	s.byID.Store(&m)
	return m, nil
}

// LoadFile reads snapshot data from a regular file of any size.
func LoadFile(path string) (*Data, error) { return LoadFileFrom(files.New(0, ""), path) }

// LoadFileFrom reads snapshot data from a file opened through r, which
// refuses anything but a regular file within its limits.
func LoadFileFrom(r *files.Reader, path string) (*Data, error) {
	return LoadFileFromContext(context.Background(), r, path)
}

// LoadFileFromContext is LoadFileFrom that stops when ctx is done: the
// decoder looks at ctx at every node once it has scanned a bounded number
// of bytes (jsonscan.CheckEvery) since its previous look, and returns an
// error wrapping ctx's.
func LoadFileFromContext(ctx context.Context, r *files.Reader, path string) (*Data, error) {
	b, err := r.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	if len(b) == 0 {
		return LoadStringContext(ctx, "")
	}
	// The buffer is ours and is never written again, so the nodes can
	// keep substrings of it without a copy of the whole input (for a large
	// file the copy, and the page faults of its fresh memory, are a large
	// part of the load).
	return LoadStringContext(ctx, unsafe.String(&b[0], len(b)))
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

// LoadBytesContext is LoadBytes that stops when ctx is done, as
// LoadFileFromContext does.
func LoadBytesContext(ctx context.Context, b []byte) (*Data, error) {
	return LoadStringContext(ctx, string(b))
}

// LoadString is LoadBytes for data already in a string; the loaded nodes
// keep the text of their JSON objects as substrings of src.
func LoadString(src string) (*Data, error) { return LoadStringContext(context.Background(), src) }

// LoadStringContext is LoadString that stops when ctx is done, as
// LoadFileFromContext does.
func LoadStringContext(ctx context.Context, src string) (*Data, error) {
	d := &decoder{Scanner: jsonscan.Scanner{S: src, Prefix: "invalid data: ", Ctx: ctx}}
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
			s, err := d.root("root", 2)
			rootSnap = s
			return err
		case "snapshots":
			if hasSnaps {
				return d.Errorf("two \"snapshots\" keys")
			}
			hasSnaps = true
			if d.Peek() != '[' {
				if err := d.skip(2); err != nil {
					return err
				}
				return errors.New("invalid data: \"snapshots\" must be an array")
			}
			return d.Array(func(i int) error {
				if d.Peek() != '{' {
					if err := d.skip(3); err != nil {
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
						s, err = d.root(fmt.Sprintf("snapshots[%d].root", i), 4)
						return err
					case "cycle":
						raw, err := d.rawValue(4)
						cycle = decodeRaw(raw)
						return err
					}
					return d.skip(4)
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
			raw, err := d.rawValue(2)
			topCycle = decodeRaw(raw)
			return err
		}
		return d.skip(2)
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
	} else if v, _ := rootSnap.Root().Attr("cycle"); v != nil {
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

// isRoot reports whether node i is the region root ^name: its nodeType is
// "^name" or "name"; ^root also matches the tree's top node.
func (s *Snapshot) isRoot(i int32, name string) bool {
	if t := s.typeName(i); len(t) == len(name)+1 && t[0] == '^' && t[1:] == name || t == name {
		return true
	}
	return name == "root" && i == 0
}

// ContentHash returns the node's content_hash attribute, or when absent and
// the node has content, "sha256:" followed by the hex SHA-256 of the content
// (the string's bytes, or the compact JSON encoding of non-string content).
func (n Node) ContentHash() any {
	if v, ok := n.Attr("content_hash"); ok {
		return v
	}
	c, ok := n.Attr("content")
	if !ok || c == nil {
		return nil
	}
	sum := contentSum(contentBytes(c))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func contentBytes(c any) []byte {
	if s, ok := c.(string); ok {
		return []byte(s)
	}
	b, _ := json.Marshal(c)
	return b
}

// all returns every node of the snapshot in pre-order, built on first use.
func (s *Snapshot) all() []int32 {
	s.allOnce.Do(func() {
		s.allIdx = make([]int32, len(s.parent))
		for i := range s.allIdx {
			s.allIdx[i] = int32(i)
		}
	})
	return s.allIdx
}
