package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
)

// TestRuleDocsUpToDate compares docs/rules with the pages generated from
// the registry; with -update it rewrites them and removes stale pages.
func TestRuleDocsUpToDate(t *testing.T) {
	reg, err := All()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "docs", "rules")
	want := map[string]string{"README.md": RuleIndex(reg)}
	for _, a := range reg.All() {
		want[a.Code+".md"] = RuleDoc(a)
	}
	if golden.Updating() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, p := range old {
			if _, ok := want[filepath.Base(p)]; !ok {
				os.Remove(p)
			}
		}
		for name, text := range want {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, text := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != text {
			t.Errorf("docs/rules/%s is stale or missing: run go test ./lint -update", name)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, p := range pages {
		if _, ok := want[filepath.Base(p)]; !ok {
			t.Errorf("docs/rules/%s documents no rule: run go test ./lint -update", filepath.Base(p))
		}
	}
	if !strings.Contains(want["README.md"], "PACT001") {
		t.Error("index lacks PACT001")
	}
}
