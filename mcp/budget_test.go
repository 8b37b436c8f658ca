package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/acp"
)

// TestLanguageBudgetsSayHowToRaise checks that a Datalog call stopped by
// its tuple budget names the flag of "ctxql mcp" that raises the limit.
func TestLanguageBudgetsSayHowToRaise(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("r.json", `{"relations": {"r": {"param_types": ["N"], "tuples": [["1"], ["2"], ["3"], ["4"], ["5"]]}}}`)
	s := New(&acp.Index{Root: dir}, Options{Budget: Budget{MaxTuples: 20}})
	_, err := s.Datalog(context.Background(), DatalogArgs{Query: "q(a, b, c) <-- r(a), r(b), r(c).", Data: "r.json"})
	if err == nil || !strings.Contains(err.Error(), "(raise with --max-tuples)") {
		t.Errorf("Datalog over its tuple budget: %v", err)
	}
}
