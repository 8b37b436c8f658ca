package resultdiff

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/gittest"
)

// stateRepo makes a committed repository with query files, data, a link,
// an executable file, ignore rules and a file checked out with CRLF line
// ends.
func stateRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Run(t, dir, "init", "-q")
	put(t, dir, "q/a.pact", "// data: ../data/tree.json\n.seg\n")
	put(t, dir, "q/b.pact", "// data: ../data/tree.json\n.block\n")
	put(t, dir, "q/c.jql", "// data: ../data/acts.json\n{from: 'activities'}\n")
	put(t, dir, "q/crlf.pact", "// data: ../data/tree.json\r\n.seg\r\n")
	put(t, dir, "data/tree.json", `{"root": {"children": []}}`)
	put(t, dir, "data/acts.json", "[]")
	put(t, dir, ".gitignore", "ignored/\n*.tmp\n")
	put(t, dir, ".gitattributes", "q/crlf.pact text eol=crlf\n")
	put(t, dir, "run.sh", "#!/bin/sh\n")
	if err := os.Symlink("q/a.pact", filepath.Join(dir, "alias.pact")); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "add", "-A")
	gittest.Run(t, dir, "commit", "-qm", "base")
	return dir
}

// checkBase fails the test unless the base files st lists are those "git
// ls-tree -r HEAD" lists in dir.
func checkBase(t *testing.T, dir string, st *state) {
	t.Helper()
	want := entryLines(parseTree([]byte(gittest.Run(t, dir, "ls-tree", "-r", "-z", "--full-tree", "HEAD"))))
	if got := entryLines(st.base); !slices.Equal(got, want) {
		t.Errorf("base files:\n%s\nwant (git ls-tree)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// fromIndex tells whether readState lists HEAD's files in dir from the
// index (git status pins every reported path to HEAD and the index is read
// directly), and if not, why.
func fromIndex(t *testing.T, dir, commit string) (bool, string) {
	t.Helper()
	status := gittest.Run(t, dir, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--renames", "--ignore-submodules=none")
	_, ok := (&state{changed: map[string]bool{}, moved: map[string]string{}}).status([]byte(status))
	_, err := readIndex(filepath.Join(dir, ".git", "index"), len(commit)/2)
	return ok && err == nil, fmt.Sprintf("status pins HEAD: %v; index: %v", ok, err)
}

// TestReadStateHead: for HEAD, the base files readState lists from the
// index and git status are those "git ls-tree -r HEAD" lists, after every
// kind of change to the work tree and the index; the changed paths and
// renames are those git status names. Where status cannot pin a path to
// HEAD (an unmerged path, a rename in the work tree alone) or the index is
// not read directly, git lists the tree, with the same result.
func TestReadStateHead(t *testing.T) {
	needGit(t)
	for _, c := range []struct {
		name    string
		change  func(t *testing.T, dir string, git func(...string) string)
		changed []string          // the changed paths, sorted
		moved   map[string]string // renames
		index   bool              // the index gives the listing
		sub     string            // run in this subdirectory
	}{
		{name: "clean", change: func(*testing.T, string, func(...string) string) {}, index: true},
		{name: "modified", change: func(t *testing.T, dir string, _ func(...string) string) {
			put(t, dir, "q/a.pact", "// data: ../data/tree.json\n.block\n")
		}, changed: []string{"q/a.pact"}, index: true},
		{name: "staged and modified again", change: func(t *testing.T, dir string, git func(...string) string) {
			put(t, dir, "q/a.pact", "// data: ../data/tree.json\n.block\n")
			put(t, dir, "data/tree.json", `{"root": {"children": [{"id": "x"}]}}`)
			git("add", "q/a.pact", "data/tree.json")
			put(t, dir, "q/a.pact", "// data: ../data/tree.json\n.seg > .block\n")
		}, changed: []string{"data/tree.json", "q/a.pact"}, index: true},
		{name: "deleted", change: func(t *testing.T, dir string, _ func(...string) string) {
			os.Remove(filepath.Join(dir, "q/b.pact"))
		}, changed: []string{"q/b.pact"}, index: true},
		{name: "staged deletion", change: func(t *testing.T, dir string, git func(...string) string) {
			git("rm", "-q", "q/b.pact", "data/acts.json")
		}, changed: []string{"data/acts.json", "q/b.pact"}, index: true},
		{name: "untracked and ignored", change: func(t *testing.T, dir string, _ func(...string) string) {
			put(t, dir, "q/new.pact", ".seg\n")
			put(t, dir, "fresh/dir/n.dl", "x(1).\n")
			put(t, dir, "ignored/i.pact", ".seg\n")
			put(t, dir, "q/scratch.tmp", "x\n")
		}, changed: []string{"fresh/dir/n.dl", "q/new.pact"}, index: true},
		{name: "staged new and intent to add", change: func(t *testing.T, dir string, git func(...string) string) {
			put(t, dir, "q/new.pact", ".seg\n")
			put(t, dir, "q/later.pact", ".seg\n")
			git("add", "q/new.pact")
			git("add", "-N", "q/later.pact")
		}, changed: []string{"q/later.pact", "q/new.pact"}, index: true},
		{name: "intent to add over a removed file", change: func(t *testing.T, dir string, git func(...string) string) {
			git("rm", "-q", "--cached", "q/b.pact")
			git("add", "-N", "q/b.pact")
		}, changed: []string{"q/b.pact"}, index: true},
		{name: "renamed", change: func(t *testing.T, dir string, git func(...string) string) {
			git("mv", "q/a.pact", "q/moved.pact")
			git("mv", "q/c.jql", "q/c2.jql")
			put(t, dir, "q/c2.jql", "// data: ../data/acts.json\n{from: 'activities', limit: 1}\n")
		}, changed: []string{"q/a.pact", "q/c.jql", "q/c2.jql", "q/moved.pact"},
			moved: map[string]string{"q/moved.pact": "q/a.pact", "q/c2.jql": "q/c.jql"}, index: true},
		{name: "moved without git", change: func(t *testing.T, dir string, _ func(...string) string) {
			os.Rename(filepath.Join(dir, "q/b.pact"), filepath.Join(dir, "q/b2.pact"))
		}, changed: []string{"q/b.pact", "q/b2.pact"}, index: true},
		{name: "mode", change: func(t *testing.T, dir string, git func(...string) string) {
			os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
			os.Chmod(filepath.Join(dir, "q/b.pact"), 0o755)
			git("add", "q/b.pact")
		}, changed: []string{"q/b.pact", "run.sh"}, index: true},
		{name: "CRLF", change: func(t *testing.T, dir string, git func(...string) string) {
			put(t, dir, "q/crlf.pact", "// data: ../data/tree.json\r\n.block\r\n")
			put(t, dir, "q/b.pact", "// data: ../data/tree.json\r\n.block\r\n")
			git("add", "q/b.pact")
		}, changed: []string{"q/b.pact", "q/crlf.pact"}, index: true},
		{name: "CRLF unchanged", change: func(t *testing.T, dir string, _ func(...string) string) {
			// Rewritten with the same content: git compares the content.
			put(t, dir, "q/crlf.pact", "// data: ../data/tree.json\r\n.seg\r\n")
		}, index: true},
		{name: "links", change: func(t *testing.T, dir string, git func(...string) string) {
			os.Remove(filepath.Join(dir, "alias.pact"))
			os.Symlink("q/b.pact", filepath.Join(dir, "alias.pact"))
			os.Remove(filepath.Join(dir, "q/c.jql"))
			os.Symlink("../../outside.jql", filepath.Join(dir, "q/c.jql"))
			git("add", "q/c.jql")
			os.Symlink("/etc/passwd", filepath.Join(dir, "q/abs.pact"))
		}, changed: []string{"alias.pact", "q/abs.pact", "q/c.jql"}, index: true},
		{name: "gitlink", change: func(t *testing.T, dir string, git func(...string) string) {
			git("update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(git("rev-parse", "HEAD"))+",vendor/sub")
		}, changed: []string{"vendor/sub"}, index: true},
		{name: "index version 4", change: func(t *testing.T, dir string, git func(...string) string) {
			git("mv", "q/a.pact", "q/z.pact")
			git("update-index", "--index-version", "4")
		}, changed: []string{"q/a.pact", "q/z.pact"}, moved: map[string]string{"q/z.pact": "q/a.pact"}, index: true},
		{name: "subdirectory", sub: "q", change: func(t *testing.T, dir string, git func(...string) string) {
			git("rm", "-q", "--cached", "data/tree.json")
			put(t, dir, "q/a.pact", "// data: ../data/tree.json\n.block\n")
		}, changed: []string{"data/tree.json", "q/a.pact"}, index: true},
		{name: "intent to add, then moved", change: func(t *testing.T, dir string, git func(...string) string) {
			put(t, dir, "q/later.pact", "// data: ../data/tree.json\n.seg > .block[ttl>=1]\n")
			git("add", "-N", "q/later.pact")
			os.Rename(filepath.Join(dir, "q/later.pact"), filepath.Join(dir, "q/later2.pact"))
		}, changed: []string{"q/later.pact", "q/later2.pact"}, index: true},
		{name: "split index", change: func(t *testing.T, dir string, git func(...string) string) {
			put(t, dir, "q/a.pact", "// data: ../data/tree.json\n.block\n")
			git("update-index", "--split-index")
		}, changed: []string{"q/a.pact"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := stateRepo(t)
			git := func(args ...string) string { return gittest.Run(t, dir, args...) }
			c.change(t, dir, git)
			_, commit, st, err := readState(context.Background(), filepath.Join(dir, c.sub), "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			checkBase(t, dir, st)
			var changed []string
			for p := range st.changed {
				changed = append(changed, p)
			}
			sort.Strings(changed)
			if !slices.Equal(changed, c.changed) {
				t.Errorf("changed %q, want %q", changed, c.changed)
			}
			if len(st.moved) != len(c.moved) {
				t.Errorf("moved %v, want %v", st.moved, c.moved)
			}
			for k, v := range c.moved {
				if st.moved[k] != v {
					t.Errorf("moved %v, want %v", st.moved, c.moved)
				}
			}
			// Whether the index gave the listing.
			if got, why := fromIndex(t, dir, commit); got != c.index {
				t.Errorf("listed from the index: %v, want %v (%s)", got, c.index, why)
			}
		})
	}
}

// TestReadStateConflict: during a merge with a conflict, the base listing
// comes from git (the index holds the conflict's stages) and the
// conflicted path counts as changed.
func TestReadStateConflict(t *testing.T) {
	needGit(t)
	dir := conflictRepo(t)
	_, _, st, err := readState(context.Background(), dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	checkBase(t, dir, st)
	if !st.changed["q.pact"] || len(st.changed) != 1 {
		t.Errorf("changed %v, want q.pact", st.changed)
	}
}

// TestStatusRecords: records that do not tell HEAD's entry of their paths
// (a rename in the working tree alone, an unmerged path, a record cut
// short) make status ask for the whole tree, without failing.
func TestStatusRecords(t *testing.T) {
	oid := strings.Repeat("ab", 20)
	for _, c := range []struct {
		name, out string
		ok        bool
	}{
		{"modified", "1 .M N... 100644 100644 100644 " + oid + " " + oid + " q/a.pact\x00", true},
		{"renamed in the index", "2 R. N... 100644 100644 100644 " + oid + " " + oid + " R100 q/b.pact\x00q/a.pact\x00", true},
		{"renamed in the work tree", "2 .R N... 100644 100644 100644 " + oid + " " + oid + " R100 q/b.pact\x00q/a.pact\x00", false},
		{"unmerged", "u UU N... 100644 100644 100644 100644 " + oid + " " + oid + " " + oid + " q/a.pact\x00", false},
		{"cut short", "1 .M N... 100644\x00", false},
		{"bad mode", "1 M. N... 1x0644 100644 100644 " + oid + " " + oid + " q/a.pact\x00", false},
		{"bad XY", "1 M N... 100644 100644 100644 " + oid + " " + oid + " q/a.pact\x00", false},
		{"rename without its original path", "2 R. N... 100644 100644 100644 " + oid + " " + oid + " R100 q/b.pact", false},
	} {
		s := &state{changed: map[string]bool{}, moved: map[string]string{}}
		if _, ok := s.status([]byte(c.out)); ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
	}
}

// TestPairs: the query files to compare, paired across a rename, in the
// working tree's path order and then those only the base has: unchanged
// files pair with themselves, a link whose target now leads outside is
// compared at the base alone, a deleted file and a renamed file's old name
// are the base's alone, and PATHs select a renamed file by its new name.
func TestPairs(t *testing.T) {
	needGit(t)
	dir := stateRepo(t)
	git := func(args ...string) string { return gittest.Run(t, dir, args...) }
	outside := t.TempDir()
	for _, name := range []string{"o.pact", "old.pact", "new.pact"} {
		put(t, outside, name, ".seg\n")
	}
	os.Symlink("../mid.pact", filepath.Join(dir, "q/chain.pact"))
	os.Symlink("q/b.pact", filepath.Join(dir, "mid.pact"))
	os.Symlink(filepath.Join(outside, "old.pact"), filepath.Join(dir, "q/ext.pact"))
	git("add", "-A")
	git("commit", "-qm", "links")
	os.Remove(filepath.Join(dir, "mid.pact"))
	os.Symlink(filepath.Join(outside, "o.pact"), filepath.Join(dir, "mid.pact"))
	os.Remove(filepath.Join(dir, "q/ext.pact"))
	os.Symlink(filepath.Join(outside, "new.pact"), filepath.Join(dir, "q/ext.pact"))
	os.Mkdir(filepath.Join(dir, "r"), 0o755)
	git("mv", "q/a.pact", "r/a.pact")
	git("rm", "-q", "q/c.jql")
	put(t, dir, "q/new.pact", ".seg\n")
	for _, c := range []struct {
		filter  []string
		want    []pair
		skipped []Skip
	}{
		{nil, []pair{{"alias.pact", "alias.pact", true}, {"q/b.pact", "q/b.pact", false},
			{"q/crlf.pact", "q/crlf.pact", false}, {"q/new.pact", "", false}, {"r/a.pact", "q/a.pact", false},
			{"", "mid.pact", true}, {"", "q/c.jql", false}, {"", "q/chain.pact", true}},
			// A link changed from one target outside to another is named
			// with the working tree's.
			[]Skip{{"mid.pact", filepath.Join(outside, "o.pact")}, {"q/chain.pact", "../mid.pact"},
				{"q/ext.pact", filepath.Join(outside, "new.pact")}}},
		{[]string{"r"}, []pair{{"r/a.pact", "q/a.pact", false}}, nil},
	} {
		_, _, st, err := readState(context.Background(), dir, "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		work, err := newTree(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer work.close()
		baseFilter := append([]string(nil), c.filter...)
		for n, o := range st.moved {
			if len(c.filter) > 0 && selected(n, c.filter) {
				baseFilter = append(baseFilter, o)
			}
		}
		cmp := &comparison{st: st, work: work, filter: c.filter}
		rep := &Report{}
		if got := cmp.pairs(baseFilter, rep); !slices.Equal(got, c.want) {
			t.Errorf("filter %q: pairs\n%v\nwant\n%v", c.filter, got, c.want)
		}
		if !slices.Equal(rep.Skipped, c.skipped) {
			t.Errorf("filter %q: skipped\n%v\nwant\n%v", c.filter, rep.Skipped, c.skipped)
		}
	}
}

// TestHasDir: a path lies below a directory of the name anywhere in it,
// not below one whose name merely contains it.
func TestHasDir(t *testing.T) {
	for p, want := range map[string]bool{
		"node_modules/a.pact":                       true,
		"q/node_modules/x/a.pact":                   true,
		"q/my_node_modules/a.pact":                  false,
		"q/node_modules_old/a.pact":                 false,
		"q/node_modules":                            false,
		"node_modules":                              false,
		"x/node_modulesnode_modules/":               false,
		"x/node_modulesnode_modules/node_modules/a": true,
		"q/a.pact":                                  false,
	} {
		if got := hasDir(p, "node_modules"); got != want {
			t.Errorf("hasDir(%q): %v, want %v", p, got, want)
		}
	}
}

// TestReadStateWorktree: in a linked work tree (git worktree add), whose
// index lies in the main repository's git directory, the base files are
// those git ls-tree lists.
func TestReadStateWorktree(t *testing.T) {
	needGit(t)
	dir := stateRepo(t)
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, dir, "worktree", "add", "-q", linked)
	gittest.Run(t, linked, "rm", "-q", "q/b.pact")
	put(t, linked, "q/a.pact", "// data: ../data/tree.json\n.block\n")
	_, _, st, err := readState(context.Background(), filepath.Join(linked, "q"), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	checkBase(t, linked, st)
	if !st.changed["q/a.pact"] || !st.changed["q/b.pact"] || len(st.changed) != 2 {
		t.Errorf("changed %v, want q/a.pact and q/b.pact", st.changed)
	}
	loc, err := locate(context.Background(), filepath.Join(linked, "q"), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readIndex(loc.index, 20); err != nil || !strings.Contains(filepath.ToSlash(loc.index), ".git/worktrees/") {
		t.Errorf("the linked work tree's index %s: %v", loc.index, err)
	}
}

// TestReadStateObjectFormats: in repositories with SHA-1 and with SHA-256
// object names, whose index holds staged gitlinks, a path longer than a
// file name may be, a skip-worktree entry and an intent-to-add entry, the
// base files read from the index are those git ls-tree lists.
func TestReadStateObjectFormats(t *testing.T) {
	needGit(t)
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir := indexRepo(t, "--object-format="+format)
			put(t, dir, "d01/sub/q001.pact", ".block\n")
			_, commit, st, err := readState(context.Background(), dir, "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			checkBase(t, dir, st)
			if !st.changed["d01/sub/q001.pact"] || !st.changed["vendor/sub"] || !st.changed["new/intent.pact"] {
				t.Errorf("changed %v", st.changed)
			}
			if ok, why := fromIndex(t, dir, commit); !ok {
				t.Errorf("the index is not read (%s)", why)
			}
		})
	}
}
