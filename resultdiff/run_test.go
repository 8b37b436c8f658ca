package resultdiff

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/gittest"
)

// TestRunParallel: twenty query files sharing one data file whose content
// changed are all evaluated (at once, loading each revision's data once) and
// all reported; unchanged files beside them are counted and not evaluated.
// Run with -race it checks the evaluations share the trees safely.
func TestRunParallel(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	run := func(args ...string) { gittest.Run(t, dir, args...) }
	tree := func(ttl int) string {
		return fmt.Sprintf(`{"root": {"children": [{"id": "seg:1", "nodeType": "seg", "children": [{"id": "block:1", "nodeType": "block", "ttl": %d}]}]}}`, ttl)
	}
	run("init", "-q")
	put(t, dir, "data/shared.json", tree(1))
	put(t, dir, "data/other.json", tree(1))
	for i := range 20 {
		put(t, dir, fmt.Sprintf("q/s%02d.pact", i), "// data: ../data/shared.json\n.block[ttl>=2]\n")
		put(t, dir, fmt.Sprintf("q/o%02d.pact", i), "// data: ../data/other.json\n.block[ttl>=2]\n")
	}
	run("add", "-A")
	run("commit", "-qm", "base")
	put(t, dir, "data/shared.json", tree(3))
	rep, err := Run(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Changes) != 20 || rep.Queries != 20 || rep.Unchanged != 20 {
		t.Fatalf("%d changes of %d queries, %d unchanged files; want 20, 20, 20", len(rep.Changes), rep.Queries, rep.Unchanged)
	}
	for i, c := range rep.Changes {
		if want := fmt.Sprintf("q/s%02d.pact", i); c.Path != want || strings.Join(c.Added, ",") != "block:1" {
			t.Errorf("change %d: %s +%v, want %s +[block:1]", i, c.Path, c.Added, want)
		}
	}
	all, err := Run(context.Background(), Options{Dir: dir, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Changes) != 20 || all.Queries != 40 || all.Unchanged != 0 {
		t.Errorf("All: %d changes of %d queries, %d unchanged", len(all.Changes), all.Queries, all.Unchanged)
	}
}
