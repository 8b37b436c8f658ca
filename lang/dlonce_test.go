package lang

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// TestDatalogLoadOnce loads a JSON data file large enough to be mapped
// with LoadOnce and with Load, and checks that evaluations on both give
// the same tuples: one at a time, and several at once (whose databases
// LoadOnce loads from the file again, the mapping of the first load
// being released). A facts directory loads too; a missing or invalid
// file is a *DataError.
func TestDatalogLoadOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dl.json")
	if err := os.WriteFile(path, []byte(canceltest.DatalogJSON(60000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dl := ByID(Datalog)
	q := Query{Name: "rule", Src: `q(x, z) <-- e(x, y), e(z, y);`}
	// eval runs on several goroutines at once: it reports with Errorf.
	eval := func(d Data) any {
		t.Helper()
		res, err := dl.Evaluate(ctx, d, q, Budget{})
		if err != nil {
			t.Errorf("evaluate: %v", err)
			return nil
		}
		if len(res.Diagnostics) > 0 {
			t.Errorf("the rule: %v", res.Diagnostics)
		}
		return res.Value
	}
	held, err := dl.Load(ctx, nil, path)
	if err != nil {
		t.Fatal(err)
	}
	want := eval(held)
	if w, _ := want.([][]string); len(w) == 0 {
		t.Fatal("the rule derives nothing: the test checks nothing")
	}
	once, err := dl.LoadOnce(ctx, nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := eval(once); !reflect.DeepEqual(got, want) {
		t.Fatalf("LoadOnce gives other tuples than Load: %.200v", got)
	}
	if !reflect.DeepEqual(once.Schema(), held.Schema()) || !reflect.DeepEqual(RelationSizes(once), RelationSizes(held)) {
		t.Errorf("LoadOnce's schema and sizes %v %v, Load's %v %v", once.Schema(), RelationSizes(once), held.Schema(), RelationSizes(held))
	}
	var wg sync.WaitGroup
	got := make([]any, 4)
	for i := range got {
		wg.Go(func() { got[i] = eval(once) })
	}
	wg.Wait()
	for i, g := range got {
		if !reflect.DeepEqual(g, want) {
			t.Errorf("evaluation %d of several at once differs", i)
		}
	}

	facts := filepath.Join(dir, "facts")
	if err := os.Mkdir(facts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(facts, "e.facts"), []byte("a\tb\nb\tc\nc\ta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := dl.LoadOnce(ctx, nil, facts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(eval(fd)); got != "[[a a] [b b] [c c]]" {
		t.Errorf("facts directory: %s, want [[a a] [b b] [c c]]", got)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"relations": {"e": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing.json"), bad} {
		var de *DataError
		if _, err := dl.LoadOnce(ctx, nil, p); !errors.As(err, &de) {
			t.Errorf("LoadOnce(%s): err = %v, want a *DataError", filepath.Base(p), err)
		}
	}
}
