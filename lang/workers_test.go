package lang

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestDatalogWorkers checks that a Datalog evaluation splits its rounds
// across GOMAXPROCS workers, and that its tuples are the same with one
// processor and with several: a recursive program over a binary tree of
// 2^14 nodes, whose last rounds derive thousands of new tuples each, more
// than a split round needs.
func TestDatalogWorkers(t *testing.T) {
	if got, want := dlOptions(Budget{}).Workers, runtime.GOMAXPROCS(0); got != want {
		t.Errorf("dlOptions: %d workers, want GOMAXPROCS (%d)", got, want)
	}
	var b strings.Builder
	b.WriteString(`{"relations": {"child": {"param_types": ["N", "N"], "tuples": [`)
	const nodes = 1 << 14
	for i := 2; i <= nodes; i++ {
		if i > 2 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["n%d", "n%d"]`, i/2, i)
	}
	b.WriteString(`]}}}`)
	src := `
reach(x) <-- child("n1", x);
reach(y) <-- reach(x), child(x, y);
depth(x, n) <-- child("n1", x), let n = 1;
depth(y, n + 1) <-- depth(x, n), child(x, y);
leaf(x) <-- reach(x), !child(x, _);
`
	dl := ByID(Datalog)
	ctx := context.Background()
	eval := func(procs int) any {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		d, err := dl.LoadBytes(ctx, "tree.json", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := dl.Evaluate(ctx, d, Query{Name: "tree.dl", Src: src, Program: true}, Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Diagnostics) > 0 {
			t.Fatalf("the program: %v", res.Diagnostics)
		}
		if n := dlOptions(Budget{}).Workers; n != procs {
			t.Fatalf("with GOMAXPROCS %d: %d workers", procs, n)
		}
		return res.Value
	}
	want := eval(1)
	m, _ := want.(map[string][][]string)
	if len(m["reach"]) != nodes-1 || len(m["leaf"]) != nodes/2 || len(m["depth"]) != nodes-1 {
		t.Fatalf("one worker: %d reach, %d leaf, %d depth tuples, want %d, %d, %d", len(m["reach"]), len(m["leaf"]), len(m["depth"]), nodes-1, nodes/2, nodes-1)
	}
	for _, procs := range []int{2, 4} {
		if got := eval(procs); !reflect.DeepEqual(got, want) {
			t.Errorf("GOMAXPROCS %d: other tuples than with one processor", procs)
		}
	}
}
