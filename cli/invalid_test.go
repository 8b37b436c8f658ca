package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOneInvalidQueryReport checks that an invalid query is reported the
// same way in every language: one line per error, "[NAME:]LINE:COL:
// message", nothing else, exit 1.
func TestOneInvalidQueryReport(t *testing.T) {
	dir := t.TempDir()
	pactData := filepath.Join(dir, "t.json")
	dlData := filepath.Join(dir, "r.json")
	if err := os.WriteFile(pactData, []byte(`{"root": {"id": "r"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dlData, []byte(`{"relations": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^(query:)?\d+:\d+: \S`)
	for name, args := range map[string][]string{
		"pact":    {"eval", "pact", "--data", pactData, ".cb[ttl<=]"},
		"jql":     {"eval", "jql", "--data", writeJQLData(t), `{"from": "users"}`},
		"datalog": {"eval", "datalog", "--data", dlData, "q(x) <-- r(x, "},
	} {
		stdout, stderr, code := runCLI(args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 1 || stdout != "" || len(lines) != 1 || !line.MatchString(lines[0]) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line LINE:COL: message", name, code, stdout, stderr)
		}
	}
}
