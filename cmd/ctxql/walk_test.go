package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkSkipsLinksOutside: in a tree holding link.pact ->
// ../outside/target.pact (a legacy-form file), fix, check --fix
// --unsafe-fixes, fmt -w, migrate -w and migrate --to v2 --unsafe -w on "."
// leave the target alone and say so once on stderr, while they rewrite the
// tree's own files and follow a link that stays inside it; check on "."
// does not read the target. Named on the command line, the link is written
// through; so is a link whose target lies in another named path.
func TestWalkSkipsLinksOutside(t *testing.T) {
	const legacy = "@t0 .seg .block:summary { ttl>=2 }\n"
	setup := func(t *testing.T) (dir, tree, target string) {
		dir = t.TempDir()
		tree, target = filepath.Join(dir, "tree"), filepath.Join(dir, "outside", "target.pact")
		write(t, target, legacy, 0o644)
		write(t, filepath.Join(tree, "own.pact"), legacy, 0o644)
		write(t, filepath.Join(tree, "sub", "real.pact"), legacy, 0o644)
		for link, to := range map[string]string{"link.pact": "../outside/target.pact", "inner.pact": "sub/real.pact"} {
			if err := os.Symlink(to, filepath.Join(tree, link)); err != nil {
				t.Fatal(err)
			}
		}
		return dir, tree, target
	}
	const told = "link.pact: skipped: a link to ../outside/target.pact, outside the paths named on the command line"
	for _, args := range [][]string{
		{"fix", "."},
		{"check", "--fix", "--unsafe-fixes", "."},
		{"fmt", "-w", "."},
		{"migrate", "-w", "."},
		{"migrate", "--to", "v2", "--unsafe", "-w", "."},
	} {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			_, tree, target := setup(t)
			r := ctxql(t, tree, nil, args...)
			if got := read(t, target); got != legacy {
				t.Errorf("exit %d: the target outside the tree was rewritten: %q\n%s", r.code, got, r.stderr)
			}
			if n := strings.Count(r.stderr, told); n != 1 {
				t.Errorf("exit %d: stderr tells of the link %d times, want once:\n%s", r.code, n, r.stderr)
			}
			if args[0] == "fmt" {
				return // the legacy form is canonical: fmt changes nothing
			}
			for _, f := range []string{"own.pact", "sub/real.pact"} {
				if got := read(t, filepath.Join(tree, f)); got == legacy {
					t.Errorf("%s, inside the tree, was not rewritten", f)
				}
			}
			if fi, err := os.Lstat(filepath.Join(tree, "link.pact")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("link.pact is no longer a link")
			}
		})
	}
	t.Run("check", func(t *testing.T) {
		_, tree, _ := setup(t)
		r := ctxql(t, tree, nil, "check", "--format", "json", ".")
		if strings.Contains(r.stdout, "link.pact") || !strings.Contains(r.stdout, "own.pact") {
			t.Errorf("check read through the link, or not the tree's own file:\n%s", r.stdout)
		}
		if n := strings.Count(r.stderr, told); n != 1 {
			t.Errorf("stderr tells of the link %d times, want once:\n%s", n, r.stderr)
		}
	})
	t.Run("named", func(t *testing.T) {
		for _, args := range [][]string{{"fix", "link.pact"}, {"fix", ".", "../outside"}} {
			_, tree, target := setup(t)
			r := ctxql(t, tree, nil, args...)
			if got := read(t, target); got == legacy || r.code != 0 {
				t.Errorf("%v: exit %d, target %q: not written through\n%s", args, r.code, got, r.stderr)
			}
			if strings.Contains(r.stderr, "skipped") {
				t.Errorf("%v: %s", args, r.stderr)
			}
		}
	})
}

// TestDiffSkipsLinksOutside: ctxql diff does not read a query file that is
// a link leading outside the paths compared — the work tree, or the PATHs
// named — at either revision, and says so once on stderr; a link inside
// them is read.
func TestDiffSkipsLinksOutside(t *testing.T) {
	repo, gitRun := gitRepo(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "target.pact"), "// data: tree.json\n.seg\n", 0o644)
	write(t, filepath.Join(outside, "tree.json"), diffTree, 0o644)
	write(t, filepath.Join(repo, "data", "tree.json"), diffTree, 0o644)
	write(t, filepath.Join(repo, "shared", "s.pact"), "// data: ../data/tree.json\n.seg\n", 0o644)
	write(t, filepath.Join(repo, "q", "own.pact"), "// data: ../data/tree.json\n.block\n", 0o644)
	for link, to := range map[string]string{"q/out.pact": filepath.Join(outside, "target.pact"), "q/in.pact": "../shared/s.pact"} {
		if err := os.Symlink(to, filepath.Join(repo, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	for _, c := range []struct {
		args    []string
		skipped []string
		queries int
	}{
		{[]string{"--all"}, []string{"q/out.pact"}, 3},                   // own, s, in
		{[]string{"--all", "q"}, []string{"q/in.pact", "q/out.pact"}, 1}, // own
	} {
		_, rep, r := diffChanges(t, repo, c.args...)
		if rep.Queries != c.queries || len(rep.Changed) != 0 {
			t.Errorf("diff %v: %d queries, %d changes, want %d and none\n%s", c.args, rep.Queries, len(rep.Changed), c.queries, r.stdout)
		}
		for _, s := range c.skipped {
			if n := strings.Count(r.stderr, "diff: "+s+": skipped: a link to "); n != 1 {
				t.Errorf("diff %v: stderr tells of %s %d times, want once:\n%s", c.args, s, n, r.stderr)
			}
		}
		if n := strings.Count(r.stderr, "skipped"); n != len(c.skipped) {
			t.Errorf("diff %v: %d links skipped, want %d:\n%s", c.args, n, len(c.skipped), r.stderr)
		}
	}
}
