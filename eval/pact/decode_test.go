package pact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// refNode is one node as the encoding/json reference decoder sees it.
type refNode struct {
	Attrs    map[string]any
	Children []*refNode
}

// refSnapshot is one snapshot of the reference decoding.
type refSnapshot struct {
	Cycle int64
	Root  *refNode
}

// refLoad decodes snapshot data with encoding/json into generic maps, the
// way the loader did before it had its own scanner: the reference the
// scanner is compared with. It reports ok=false for inputs encoding/json
// rejects or that are not shaped like snapshot data.
func refLoad(b []byte) ([]refSnapshot, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, false
	}
	if !json.Valid(b) {
		return nil, false // for example data after the top-level value
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, false
	}
	if raw, ok := obj["snapshots"]; ok {
		list, ok := raw.([]any)
		if !ok || len(list) == 0 {
			return nil, false
		}
		var out []refSnapshot
		seen := map[int64]bool{}
		for _, e := range list {
			so, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			cyc, ok := intOf(so["cycle"])
			if !ok || seen[cyc] {
				return nil, false
			}
			seen[cyc] = true
			r, ok := refBuild(so["root"], 0)
			if !ok {
				return nil, false
			}
			out = append(out, refSnapshot{cyc, r})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Cycle < out[j].Cycle })
		return out, true
	}
	r, ok := refBuild(obj["root"], 0)
	if !ok {
		return nil, false
	}
	var cyc int64
	if c, ok := intOf(obj["cycle"]); ok {
		cyc = c
	} else if c, ok := intOf(r.Attrs["cycle"]); ok {
		cyc = c
	}
	return []refSnapshot{{cyc, r}}, true
}

func refBuild(raw any, level int) (*refNode, bool) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, false
	}
	for _, k := range []string{"id", "nodeType"} {
		if v, ok := obj[k]; ok && v != nil {
			if _, ok := v.(string); !ok {
				return nil, false
			}
		}
	}
	n := &refNode{Attrs: obj}
	if v, ok := obj["children"]; ok && v != nil {
		kids, ok := v.([]any)
		if !ok {
			return nil, false
		}
		for _, k := range kids {
			c, ok := refBuild(k, level+1)
			if !ok {
				return nil, false
			}
			n.Children = append(n.Children, c)
		}
	}
	delete(obj, "children")
	return n, true
}

// sameTree compares a loaded node with the reference node, and its cached
// headers with its decoded attributes.
func sameTree(t *testing.T, n Node, r *refNode, path string) {
	t.Helper()
	got := map[string]any{}
	for _, kv := range n.Attributes() {
		got[kv.Key] = kv.Value
	}
	if len(got) != len(n.Attributes()) {
		t.Fatalf("%s: repeated attribute keys survive: %v", path, n.Attributes())
	}
	if !reflect.DeepEqual(got, r.Attrs) {
		t.Fatalf("%s: attributes\n got %#v\nwant %#v", path, got, r.Attrs)
	}
	if id, _ := r.Attrs["id"].(string); n.ID() != id {
		t.Fatalf("%s: ID %q, want %q", path, n.ID(), id)
	}
	if typ, _ := r.Attrs["nodeType"].(string); n.NodeType() != typ {
		t.Fatalf("%s: NodeType %q, want %q", path, n.NodeType(), typ)
	}
	for _, k := range stringKeys {
		v, ok, known := n.s.cachedStr(n.i, k)
		if !known {
			continue
		}
		want, isStr := r.Attrs[k].(string)
		if ok != isStr || v != want {
			t.Fatalf("%s: cached %s = %q (%v), want %q (%v)", path, k, v, ok, want, isStr)
		}
	}
	for _, k := range numericKeys {
		v, ok, _ := n.s.cachedNum(n.i, k)
		if !ok {
			continue
		}
		if num, isNum := r.Attrs[k].(json.Number); !isNum || num.String() == "" {
			t.Fatalf("%s: cached %s = %v, want %v", path, k, v, r.Attrs[k])
		} else if f, _ := num.Float64(); f != v {
			t.Fatalf("%s: cached %s = %v, want %v", path, k, v, f)
		}
	}
	if n.NumChildren() != len(r.Children) {
		t.Fatalf("%s: %d children, want %d", path, n.NumChildren(), len(r.Children))
	}
	i := 0
	for c := range n.Children() {
		if p, ok := c.Parent(); !ok || p != n || int(c.s.pos[c.i]) != i+1 || c.Depth() != n.Depth()+1 {
			t.Fatalf("%s: child %d has wrong parent, position or depth", path, i)
		}
		sameTree(t, c, r.Children[i], fmt.Sprintf("%s.children[%d]", path, i))
		i++
	}
}

// checkAgainstReference loads b with the scanner and with encoding/json and
// requires the same verdict and, when both accept, the same trees.
func checkAgainstReference(t *testing.T, b []byte) {
	t.Helper()
	d, err := LoadBytes(b)
	ref, ok := refLoad(b)
	if err != nil {
		if ok && !strictOnly(b) {
			t.Fatalf("scanner rejects what encoding/json accepts: %v\ninput: %q", err, b)
		}
		if !strings.HasPrefix(err.Error(), "invalid data") {
			t.Fatalf("error without the invalid data prefix: %v", err)
		}
		return
	}
	if !ok {
		t.Fatalf("scanner accepts what encoding/json rejects: %q", b)
	}
	if len(d.Snapshots) != len(ref) {
		t.Fatalf("%d snapshots, want %d", len(d.Snapshots), len(ref))
	}
	for i, s := range d.Snapshots {
		if s.Cycle != ref[i].Cycle {
			t.Fatalf("snapshot %d: cycle %d, want %d", i, s.Cycle, ref[i].Cycle)
		}
		sameTree(t, s.Root(), ref[i].Root, "root")
		for j := range int32(s.Len()) {
			size := int32(1)
			for c := range s.children(j) {
				size += s.end[c] - c + 1
			}
			if s.end[j] != j+size-1 || int(s.end[j]) >= s.Len() {
				t.Fatalf("node %d: end %d, subtree of %d nodes", j, s.end[j], size)
			}
		}
	}
}

// strictOnly reports inputs the scanner rejects on purpose although
// encoding/json accepts them: repeated "children", "root" or "snapshots"
// keys.
func strictOnly(b []byte) bool {
	s := string(b)
	for _, k := range []string{`"children"`, `"root"`, `"snapshots"`} {
		if strings.Count(s, k) > 1 {
			return true
		}
	}
	return false
}

var loadSeeds = []string{
	`{"root":{"id":"r","nodeType":"^root","children":[{"id":"a","ttl":1,"role":"user"},{"id":"b","tags":["x","y"],"content":{"k":[1,2.5e3,null,true]}}]}}`,
	`{"cycle":7,"root":{"id":"r"}}`,
	`{"root":{"id":"r","cycle":3}}`,
	`{"snapshots":[{"cycle":2,"root":{"id":"r"}},{"root":{"id":"q","children":[]},"cycle":1}]}`,
	`{"root":{"id":"caf\u00e9","nodeType":"a\"b\\c\/d\n","x":"\ud83d\ude00","y":"\ud800","z":"ü"}}`,
	"{\"root\":{\"id\":\"\xff\xfe\"}}",
	`{"root":{"id":null,"nodeType":null,"children":null,"ttl":-0.0,"offset":-1,"big":12345678901234567890}}`,
	`{"root":{"id":"a","id":"b","ttl":1,"ttl":2}}`,
	` { "root" : { "children" : [ { } , { "children" : [ { "id" : "deep" } ] } ] } } `,
	`{"root":{"children":[1]}}`, `{"root":{"id":3}}`, `{"root":{"nodeType":[]}}`, `{"root":[]}`, `{"root":1}`,
	`{"snapshots":[]}`, `{"snapshots":{}}`, `{"snapshots":[1]}`, `{"snapshots":[{"root":{}}]}`, `{"snapshots":[{"cycle":1.5,"root":{}}]}`,
	`{"snapshots":[{"cycle":1,"root":{}},{"cycle":1,"root":{}}]}`, `{"snapshots":[{"cycle":1}]}`,
	`{"root":{}} x`, `{"root":{}}`, `{"root":{"a":01}}`, `{"root":{"a":1.}}`, `{"root":{"a":1e}}`, `{"root":{"a":-}}`,
	`{"root":{"a":"x` + "\x01" + `"}}`, `{"root":{"a":tru}}`, `{"root":{"a":[1,]}}`, `{"root":{"a":{"b":1,}}}`, `{"root":{,}}`,
	`{"root":{"a":"\x"}}`, `{"root":{"a":"\u12"}}`, `{"root":{"children":[{"id":"a"}],"children":[]}}`, `null`, `[]`, ``, `{}`, `{`, `"x"`,
	`{"other":[1,{"a":null}],"root":{"id":"r"}}`,
}

// TestLoadAgreesWithEncodingJSON checks the scanner against the
// encoding/json reference on hand-picked inputs and on every data file in
// testdata.
func TestLoadAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range loadSeeds {
		t.Run("", func(t *testing.T) { checkAgainstReference(t, []byte(s)) })
	}
	files, _ := filepath.Glob(filepath.Join(testdataDir, "*.json"))
	more, _ := filepath.Glob("../../testdata/*/*.json")
	files = append(files, more...)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := refLoad(b); !ok {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) { checkAgainstReference(t, b) })
	}
	if n < 3 {
		t.Fatalf("only %d data files compared", n)
	}
}

// TestLoadStrictness pins the inputs the scanner rejects although
// encoding/json would take them.
func TestLoadStrictness(t *testing.T) {
	for _, in := range []string{`{"root":{"children":[],"children":[]}}`, `{"root":{},"root":{}}`,
		`{"snapshots":[{"cycle":1,"root":{}}],"snapshots":[]}`, `{"root":{}} {}`} {
		if _, err := LoadBytes([]byte(in)); err == nil {
			t.Errorf("LoadBytes(%q): no error", in)
		}
	}
}

// TestLoadErrorNamesPlace checks that shape errors name the offending node.
func TestLoadErrorNamesPlace(t *testing.T) {
	_, err := LoadBytes([]byte(`{"root":{"children":[{},{"children":[{"id":5}]}]}}`))
	if err == nil || !strings.Contains(err.Error(), "root.children[1].children[0].id must be a string") {
		t.Fatalf("err = %v", err)
	}
	_, err = LoadBytes([]byte(`{"root":{"a":1,,}}`))
	if err == nil || !strings.Contains(err.Error(), "at byte 15") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzLoad checks the scanner never panics and agrees with encoding/json.
func FuzzLoad(f *testing.F) {
	for _, s := range loadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstReference(t, b)
	})
}

// TestWhereDeepNode checks that an error deep in the tree names the
// node's place in a short message built in linear time: the path keeps its
// first and last levels and counts the rest.
func TestWhereDeepNode(t *testing.T) {
	for _, depth := range []int{3, 2 * whereLevels, 4000} {
		src := `{"root":` + strings.Repeat(`{"children":[{"id":"x"},`, depth) + `{"id":5}` + strings.Repeat(`]}`, depth) + `}`
		_, err := LoadString(src)
		if err == nil {
			t.Fatalf("depth %d: no error", depth)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "invalid data: root.children[1]") || !strings.HasSuffix(msg, ".children[1].id must be a string") {
			t.Errorf("depth %d: %.200q", depth, msg)
		}
		if depth <= 2*whereLevels {
			if got := strings.Count(msg, ".children[1]"); got != depth {
				t.Errorf("depth %d: %d levels named: %q", depth, got, msg)
			}
		} else if len(msg) > 500 || !strings.Contains(msg, fmt.Sprintf("…(%d levels)…", depth-2*whereLevels)) {
			t.Errorf("depth %d: %d bytes: %.300q", depth, len(msg), msg)
		}
	}
}

// TestNestingAgreesWithEncodingJSON checks the loader's nesting bound
// against encoding/json's at its edge: trees whose deepest node, children
// array or attribute value is at depth 10,000 load, one level more is
// refused by both, in a single root and inside "snapshots".
func TestNestingAgreesWithEncodingJSON(t *testing.T) {
	tree := func(levels int, leaf string) string {
		return strings.Repeat(`{"children":[`, levels) + leaf + strings.Repeat(`]}`, levels)
	}
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	var inputs []string
	for _, wrap := range []struct {
		pre, post string
		base      int
	}{{`{"root":`, `}`, 2}, {`{"snapshots":[{"cycle":1,"root":`, `}]}`, 4}} {
		last := (maxNesting - wrap.base) / 2 // the deepest tree level allowed
		for _, levels := range []int{last - 1, last, last + 1} {
			inputs = append(inputs,
				wrap.pre+tree(levels, `{"id":"x"}`)+wrap.post,
				wrap.pre+tree(levels, `{"id":"x","children":[]}`)+wrap.post)
			for _, v := range []int{1, 2, 3} {
				inputs = append(inputs, wrap.pre+tree(levels, `{"id":"x","a":`+nested(v)+`}`)+wrap.post)
			}
		}
		inputs = append(inputs, wrap.pre+`{"a":`+nested(maxNesting-wrap.base)+`}`+wrap.post,
			wrap.pre+`{"a":`+nested(maxNesting-wrap.base+1)+`}`+wrap.post)
	}
	accepted, refused := 0, 0
	for _, in := range inputs {
		checkAgainstReference(t, []byte(in))
		if _, err := LoadString(in); err == nil {
			accepted++
		} else {
			refused++
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("the inputs do not straddle the bound: %d accepted, %d refused", accepted, refused)
	}
}
