package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// diffChanges runs ctxql diff --format json with args and returns the
// changes as "file query status +added -removed" lines, sorted, and the
// report.
func diffChanges(t *testing.T, dir string, args ...string) ([]string, diffJSON, result) {
	t.Helper()
	r := ctxql(t, dir, nil, append([]string{"diff", "--format", "json"}, args...)...)
	var rep diffJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("diff %v: exit %d: %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
	}
	var out []string
	for _, c := range rep.Changed {
		out = append(out, strings.Join([]string{c.File, c.Query, c.Status, strings.Join(c.Added, ","), strings.Join(c.Removed, ","), c.Error, c.BaseError}, " | "))
	}
	sort.Strings(out)
	return out, rep, r
}

// TestDiffSkipsUnchanged: ctxql diff evaluates only the files whose query,
// sample data or configuration changed, and reports exactly what --all
// (every file evaluated) reports, for each kind of change: a query edited,
// data edited, a Datalog facts directory's declarations edited, a
// .ctxql.yaml data glob changed, data reached through a link whose target
// changed, a file renamed, deleted and added, and a link in the base
// revision (read from the whole revision extracted).
func TestDiffSkipsUnchanged(t *testing.T) {
	dir, gitRun := gitRepo(t)
	write(t, filepath.Join(dir, "data", "tree.json"), diffTree, 0o644)
	write(t, filepath.Join(dir, "data", "tree2.json"), strings.Replace(diffTree, `"ttl": 1`, `"ttl": 5`, 1), 0o644)
	write(t, filepath.Join(dir, "data", "activities.json"), diffActivities, 0o644)
	write(t, filepath.Join(dir, "facts", "edge.dl"), "relation edge(String, String);\n", 0o644)
	write(t, filepath.Join(dir, "facts", "edge.facts"), "a\tb\nb\tc\n", 0o644)
	write(t, filepath.Join(dir, "cfg", ".ctxql.yaml"), "data:\n  \"*.pact\": ../data/tree.json\n", 0o644)
	write(t, filepath.Join(dir, "cfg", "by-config.pact"), ".block[ttl>=2]\n", 0o644)
	if err := os.Symlink("tree.json", filepath.Join(dir, "data", "current.json")); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"q/a.pact":      "// data: ../data/tree.json\n.block[ttl>=2]\n",
		"q/b.pact":      "// data: ../data/tree.json\n.seg\n",
		"q/c.pact":      "// data: ../data/tree2.json\n.block[ttl>=2]\n",
		"q/link.pact":   "// data: ../data/current.json\n.block[ttl>=2]\n",
		"q/acts.jql":    "// data: ../data/activities.json\n{from: 'activities', where: {type: 'agentMessaged'}}\n",
		"q/paths.dl":    "// data: ../facts\npath(x, y) <-- edge(x, y);\npath(x, z) <-- path(x, y), edge(y, z);\n",
		"q/old.pact":    "// data: ../data/tree.json\n.seg\n",
		"q/moved.pact":  "// data: ../data/tree.json\n.block\n",
		"q/nodata.pact": ".seg\n",
	}
	for p, src := range files {
		write(t, filepath.Join(dir, p), src, 0o644)
	}
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")

	got, rep, _ := diffChanges(t, dir)
	if len(got) != 0 || rep.Queries != 0 {
		t.Errorf("clean tree: %d queries evaluated, changes %v", rep.Queries, got)
	}
	all, repAll, _ := diffChanges(t, dir, "--all")
	if len(all) != 0 || repAll.Queries != 9 {
		t.Errorf("clean tree, --all: %d queries, changes %v", repAll.Queries, all)
	}

	for _, step := range []struct {
		name   string
		change func()
		want   int // changes reported
	}{
		{"query", func() {
			write(t, filepath.Join(dir, "q", "a.pact"), "// data: ../data/tree.json\n.block[ttl>=1]\n", 0o644)
		}, 1},
		{"data", func() {
			write(t, filepath.Join(dir, "data", "tree2.json"), strings.Replace(diffTree, `"ttl": 2`, `"ttl": 0`, 1), 0o644)
		}, 2},
		{"facts declarations", func() {
			write(t, filepath.Join(dir, "facts", "edge.dl"), "relation edge(String, String);\nrelation x(String);\n", 0o644)
		}, 2},
		{"facts", func() { write(t, filepath.Join(dir, "facts", "edge.facts"), "a\tb\nb\tc\nc\td\n", 0o644) }, 3},
		{"config", func() {
			write(t, filepath.Join(dir, "cfg", ".ctxql.yaml"), "data:\n  \"*.pact\": ../data/tree2.json\n", 0o644)
		}, 4},
		{"link target", func() {
			os.Remove(filepath.Join(dir, "data", "current.json"))
			os.Symlink("tree2.json", filepath.Join(dir, "data", "current.json"))
		}, 5},
		{"rename, delete, add", func() {
			gitRun("mv", "q/moved.pact", "q/renamed.pact")
			gitRun("rm", "-q", "q/old.pact")
			write(t, filepath.Join(dir, "q", "new.pact"), "// data: ../data/tree.json\n.seg\n", 0o644)
		}, 7},
	} {
		step.change()
		got, rep, r := diffChanges(t, dir)
		all, _, _ := diffChanges(t, dir, "--all")
		if !reflect.DeepEqual(got, all) {
			t.Errorf("after %s: diff reports\n%s\nwhile --all reports\n%s\n%s", step.name, strings.Join(got, "\n"), strings.Join(all, "\n"), r.stderr)
		}
		if len(got) != step.want {
			t.Errorf("after %s: %d changes, want %d:\n%s", step.name, len(got), step.want, strings.Join(got, "\n"))
		}
		if rep.Unchanged == 0 {
			t.Errorf("after %s: every file was evaluated", step.name)
		}
	}

	// A link in the base revision: the whole revision is extracted and the
	// results are those of --all.
	gitRun("add", "-A")
	gitRun("commit", "-qm", "second")
	if err := os.Symlink("a.pact", filepath.Join(dir, "q", "alias.pact")); err != nil {
		t.Fatal(err)
	}
	gitRun("add", "-A")
	gitRun("commit", "-qm", "a link")
	write(t, filepath.Join(dir, "q", "a.pact"), "// data: ../data/tree.json\n.block[ttl>=2]\n", 0o644)
	got, _, r := diffChanges(t, dir)
	all, _, _ = diffChanges(t, dir, "--all")
	if !reflect.DeepEqual(got, all) || len(got) != 2 {
		t.Errorf("a link at the base: diff reports\n%s\nwhile --all reports\n%s\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"), r.stderr)
	}
}
