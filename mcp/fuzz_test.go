package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpserver "github.com/ctxql/ctxql/mcp"
)

// fuzzRoot builds a project directory with a file, a directory, a link
// inside the project and links that escape it.
func fuzzRoot(f *testing.F) (root, realRoot string) {
	base := f.TempDir()
	root = filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "src", "auth"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "src", "auth", "jwt.ts"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	links := map[string]string{
		filepath.Join(root, "out"):         outside,
		filepath.Join(root, "src", "up"):   "../..",
		filepath.Join(root, "in"):          filepath.Join(root, "src"),
		filepath.Join(root, "abs"):         "/",
		filepath.Join(root, "loop"):        filepath.Join(root, "loop"),
		filepath.Join(root, "src", "dang"): filepath.Join(base, "missing"),
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			f.Skipf("symlinks unavailable: %v", err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	return root, real
}

// FuzzResourcePath fuzzes the acp://file/ resource path: whatever the URI,
// ResourcePath never panics, and a path it accepts is relative, free of
// ".." segments and, where it exists, resolves inside the project.
func FuzzResourcePath(f *testing.F) {
	root, realRoot := fuzzRoot(f)
	for _, s := range []string{
		"src/auth/jwt.ts", "src%2Fauth%2Fjwt.ts", "../etc/passwd", "%2e%2e/x", "/etc/passwd", "%2Fetc",
		"out/secret", "src/up/outside/secret", "in/auth/jwt.ts", "abs/etc/passwd", "loop/x", "src/dang/x",
		"./src//auth/./jwt.ts", "src/..", "..", ".", "", "a\x00b", "a\\..\\b", "%zz", "src/auth/jwt.ts?x=1#y",
		"in/../out/secret", "src/auth/../../out",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rel, err := mcpserver.ResourcePath(root, "acp://file/"+s, "acp://file/")
		if err != nil {
			return
		}
		if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
			t.Fatalf("%q: accepted non-relative path %q", s, rel)
		}
		for _, seg := range strings.Split(rel, "/") {
			if seg == ".." {
				t.Fatalf("%q: accepted %q with a .. segment", s, rel)
			}
		}
		// Resolve the longest existing prefix: it must stay inside.
		p := filepath.Join(root, filepath.FromSlash(rel))
		for {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				r, err := filepath.Rel(realRoot, real)
				if err != nil || r == ".." || strings.HasPrefix(r, "../") {
					t.Fatalf("%q: accepted %q which resolves to %q outside %q", s, rel, real, realRoot)
				}
				return
			}
			if p == root || len(p) <= len(root) {
				return
			}
			p = filepath.Dir(p)
		}
	})
}
