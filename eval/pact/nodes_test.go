package pact

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// TestNodesOption checks that a selection asked for its nodes
// (Options.Nodes) gives the nodes of the ids it gives otherwise, in their
// order and without the nodes that have no id, that it marshals to the
// same JSON, and that it reuses the storage it is given; a selection of
// every snapshot (@*) still gives ids.
func TestNodesOption(t *testing.T) {
	src := `{"root": {"id": "root", "children": [
		{"id": "cb:1", "nodeType": "cb"}, {"nodeType": "cb"}, {"id": "", "nodeType": "cb"},
		{"id": "q\"uote", "nodeType": "cb", "children": [{"id": "in", "nodeType": "cb"}]},
		{"id": "mt", "nodeType": "mt"}, {"id": "\u00e9", "nodeType": "cb"}]}}`
	d, err := LoadBytes([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]int32, 0, 64)
	for _, q := range []string{".cb", ".mt", ".zz", "* > .cb", ".cb .cb", "@* .cb"} {
		want, err := Select(context.Background(), d, q, syn.V2, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Select(context.Background(), d, q, syn.V2, Options{Nodes: &buf})
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(got)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s: marshals to %s, want %s", q, gotJSON, wantJSON)
		}
		if q == "@* .cb" {
			if got.Nodes != nil || !slices.Equal(got.IDs, want.IDs) {
				t.Errorf("%s: nodes %v, ids %q; want ids %q", q, got.Nodes, got.IDs, want.IDs)
			}
			continue
		}
		if got.IDs != nil || got.Nodes == nil {
			t.Errorf("%s: ids %q, nodes %v; want nodes", q, got.IDs, got.Nodes)
		}
		var ids []string
		for _, n := range got.Nodes {
			ids = append(ids, d.Snapshots[got.Snapshot].Node(int(n)).ID())
		}
		if !slices.Equal(ids, want.IDs) && len(ids)+len(want.IDs) > 0 {
			t.Errorf("%s: the nodes' ids are %q, want %q", q, ids, want.IDs)
		}
		if len(got.Nodes) > 0 && &got.Nodes[0] != &buf[:1][0] {
			t.Errorf("%s: the nodes are not in the storage given", q)
		}
	}
}
