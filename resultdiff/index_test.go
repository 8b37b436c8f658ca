package resultdiff

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/gittest"
)

// needGit skips a test when git is not installed (never in CI).
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
}

// put writes content to the slash path rel below dir, making directories.
func put(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// indexRepo makes a repository whose index holds many paths sharing
// prefixes (what version 4 compresses), an executable file, a link, a
// gitlink (a submodule's commit), a path of more than 0xfff bytes, a
// skip-worktree entry and an intent-to-add entry (which need version 3's
// extended flags).
func indexRepo(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string { return gittest.Run(t, dir, args...) }
	run(append([]string{"init", "-q"}, args...)...)
	for i := range 120 {
		put(t, dir, fmt.Sprintf("d%02d/sub/q%03d.pact", i%7, i), fmt.Sprintf(".seg%d\n", i))
	}
	put(t, dir, "a.dl", "x(1).\n")
	put(t, dir, "Z-upper.jql", "{}\n")
	put(t, dir, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.dl", filepath.Join(dir, "link.dl")); err != nil {
		t.Fatal(err)
	}
	run("add", "-A")
	run("commit", "-qm", "base")
	commit := strings.TrimSpace(run("rev-parse", "HEAD"))
	// Longer than a file name may be on disk: in the index alone.
	long := strings.Repeat("long-directory-name/", 230) + "q.pact"
	run("update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(run("rev-parse", "HEAD:a.dl"))+","+long)
	run("update-index", "--add", "--cacheinfo", "160000,"+commit+",vendor/sub")
	run("update-index", "--skip-worktree", "a.dl")
	put(t, dir, "new/intent.pact", ".seg\n")
	run("add", "-N", "new/intent.pact")
	return dir
}

// lsFiles is "git ls-files -s" as "mode oid stage\tpath" lines.
func lsFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, rec := range strings.Split(gittest.Run(t, dir, "ls-files", "-s", "-z"), "\x00") {
		if rec != "" {
			out = append(out, rec)
		}
	}
	return out
}

// entryLines is entries as "git ls-files -s" prints them.
func entryLines(es []entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%06o %s 0\t%s", e.mode, hex.EncodeToString([]byte(e.oid)), e.path))
	}
	return out
}

// TestReadIndex: the index of a generated repository, written as versions
// 2, 3 and 4 and with SHA-256 object names, reads as "git ls-files -s"
// lists it.
func TestReadIndex(t *testing.T) {
	needGit(t)
	for _, c := range []struct {
		name    string
		init    []string
		hashLen int
	}{
		{"sha1", nil, 20},
		{"sha256", []string{"--object-format=sha256"}, 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := indexRepo(t, c.init...)
			want := lsFiles(t, dir)
			if len(want) < 125 {
				t.Fatalf("git ls-files lists %d entries", len(want))
			}
			for _, v := range []string{"4", "3", "2"} {
				if v == "2" {
					// Version 2 cannot hold the extended flags.
					gittest.Run(t, dir, "update-index", "--no-skip-worktree", "a.dl")
					gittest.Run(t, dir, "rm", "-q", "--cached", "new/intent.pact")
					want = lsFiles(t, dir)
				}
				gittest.Run(t, dir, "update-index", "--index-version", v)
				b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				if got := b[7]; fmt.Sprint(got) != v {
					t.Fatalf("the index is version %d, want %s", got, v)
				}
				es, err := readIndex(filepath.Join(dir, ".git", "index"), c.hashLen)
				if err != nil {
					t.Fatalf("version %s: %v", v, err)
				}
				if got := entryLines(es); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("version %s: read\n%s\nwant\n%s", v, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// TestReadIndexUnsupported: a split index, a sparse index and an index with
// unmerged entries are refused with errIndexUnsupported (git lists the
// tree instead), as is an unknown version; a damaged index is an error.
func TestReadIndexUnsupported(t *testing.T) {
	needGit(t)
	t.Run("split", func(t *testing.T) {
		dir := indexRepo(t)
		gittest.Run(t, dir, "update-index", "--split-index")
		if _, err := readIndex(filepath.Join(dir, ".git", "index"), 20); !errors.Is(err, errIndexUnsupported) {
			t.Errorf("split index: %v", err)
		}
	})
	t.Run("sparse", func(t *testing.T) {
		dir := indexRepo(t)
		gittest.Run(t, dir, "update-index", "--no-skip-worktree", "a.dl")
		gittest.Run(t, dir, "rm", "-q", "--cached", "new/intent.pact")
		gittest.Run(t, dir, "update-index", "--force-remove", "vendor/sub", strings.Repeat("long-directory-name/", 230)+"q.pact")
		gittest.Run(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
		gittest.Run(t, dir, "sparse-checkout", "set", "d01")
		if _, err := readIndex(filepath.Join(dir, ".git", "index"), 20); !errors.Is(err, errIndexUnsupported) {
			t.Errorf("sparse index: %v", err)
		}
	})
	t.Run("unmerged", func(t *testing.T) {
		dir := conflictRepo(t)
		if _, err := readIndex(filepath.Join(dir, ".git", "index"), 20); !errors.Is(err, errIndexUnsupported) {
			t.Errorf("unmerged entries: %v", err)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		dir := indexRepo(t)
		b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{0, 11, 40, 200, len(b) / 2} {
			if _, err := parseIndex(string(b[:cut]), 20); err == nil {
				t.Errorf("an index cut at %d bytes reads without error", cut)
			}
		}
		v5 := append([]byte(nil), b...)
		v5[7] = 5
		if _, err := parseIndex(string(v5), 20); !errors.Is(err, errIndexUnsupported) {
			t.Errorf("version 5: %v", err)
		}
	})
}

// conflictRepo makes a repository in the middle of a merge with a
// conflict in q.pact.
func conflictRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string { return gittest.Run(t, dir, args...) }
	run("init", "-q", "-b", "main")
	put(t, dir, "q.pact", "// data: tree.json\n.seg\n")
	put(t, dir, "other.pact", "// data: tree.json\n.block\n")
	run("add", "-A")
	run("commit", "-qm", "base")
	run("checkout", "-q", "-b", "side")
	put(t, dir, "q.pact", "// data: tree.json\n.block[ttl>=1]\n")
	run("commit", "-qam", "side")
	run("checkout", "-q", "main")
	put(t, dir, "q.pact", "// data: tree.json\n.block[ttl>=2]\n")
	run("commit", "-qam", "main")
	cmd := exec.Command("git", "merge", "-q", "side")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not conflict:\n%s", out)
	}
	return dir
}

// FuzzParseIndex: no input makes the index reader panic or return an
// entry whose object name is not hashLen bytes.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 24) + "\x00\x00\x81\xa4" +
		strings.Repeat("\x00", 12) + strings.Repeat("\x01", 20) + "\x00\x01\x00a\x00" + strings.Repeat("\x00", 20)))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := parseIndex(string(b), 20)
		for _, e := range es {
			if err == nil && len(e.oid) != 20 {
				t.Fatalf("entry %q: object name of %d bytes", e.path, len(e.oid))
			}
		}
	})
}

// TestReadIndexRegularFilesOnly checks that the index is opened through
// internal/files: a directory in place of .git/index is refused, not read
// (the caller then asks git); internal/files' own tests refuse FIFOs and
// devices the same way.
func TestReadIndexRegularFilesOnly(t *testing.T) {
	if _, err := readIndex(t.TempDir(), 20); !errors.Is(err, files.ErrNotRegular) {
		t.Errorf("a directory as the index: %v, want files.ErrNotRegular", err)
	}
}
