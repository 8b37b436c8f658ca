package acp_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxql/ctxql/acp"
)

// TestConfineRefusesEscapes uses real symbolic links: paths through links
// leaving the project, ".." segments and absolute paths are refused; links
// staying inside are allowed.
func TestConfineRefusesEscapes(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src", "a.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for l, target := range map[string]string{
		"out":      outside,
		"src/up":   "../..",
		"in":       "src",
		"rootlink": "/",
		"dangling": filepath.Join(base, "missing"),
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(l))); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	refused := []string{"../x", "src/../../x", "..", "/etc/passwd", "out", "out/secret", "src/up/outside",
		"rootlink/etc", "dangling", "dangling/x", "", ".", "a\x00b", `src\..\..\x`}
	for _, p := range refused {
		if rel, _, err := acp.Confine(root, p); err == nil {
			t.Errorf("Confine(%q) = %q, want refusal", p, rel)
		} else if !errors.Is(err, acp.ErrOutsideRoot) {
			t.Errorf("Confine(%q) error %v does not wrap ErrOutsideRoot", p, err)
		}
	}
	allowed := map[string]string{"src/a.ts": "src/a.ts", "in/a.ts": "in/a.ts", "./src//a.ts": "src/a.ts", "src/new/file.ts": "src/new/file.ts"}
	for p, want := range allowed {
		rel, _, err := acp.Confine(root, p)
		if err != nil || rel != want {
			t.Errorf("Confine(%q) = %q, %v; want %q", p, rel, err, want)
		}
	}
}
