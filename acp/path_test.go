package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestConfineBounds checks that a path over the length or segment bound is
// refused up front, that a path at the bounds is still confined, that a
// looping link is refused, and that a cancelled context stops the walk.
func TestConfineBounds(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("a/", 32000) + "a" // 64 KiB, 32,001 segments
	if _, _, err := acp.Confine(root, long); !errors.Is(err, acp.ErrPathTooLong) || !strings.Contains(err.Error(), "longer than 4096 bytes") {
		t.Errorf("a 64 KiB path: %v", err)
	}
	many := strings.Repeat("a/", acp.MaxPathSegments) + "a" // under 4096 bytes
	if _, _, err := acp.Confine(root, many); !errors.Is(err, acp.ErrPathTooLong) || !strings.Contains(err.Error(), "more than 256") {
		t.Errorf("a path of %d segments: %v", acp.MaxPathSegments+1, err)
	}
	deep := strings.Repeat("d/", acp.MaxPathSegments-1) + "f"
	must(t, os.MkdirAll(filepath.Join(root, filepath.FromSlash(strings.Repeat("d/", acp.MaxPathSegments-1))), 0o755))
	if rel, _, err := acp.Confine(root, deep); err != nil || rel != deep {
		t.Errorf("a path of %d segments: %q, %v", acp.MaxPathSegments, rel, err)
	}
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if _, _, err := acp.Confine(root, "loop/x"); !errors.Is(err, acp.ErrOutsideRoot) {
		t.Errorf("a looping link: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := acp.ConfineContext(ctx, root, deep); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
