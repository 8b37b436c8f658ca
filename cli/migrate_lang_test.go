package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateAsksTheTable checks that migrate migrates the files whose
// language has migrations and refuses, as a usage error, a file named on
// the command line in a language without them (it was migrated as PACT).
func TestMigrateAsksTheTable(t *testing.T) {
	dir := t.TempDir()
	pact := filepath.Join(dir, "a.pact")
	jql := filepath.Join(dir, "a.jql")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(pact, []byte(".cb\n"), 0o644))
	must(os.WriteFile(jql, []byte(`{"from": "activities"}`+"\n"), 0o644))
	if _, stderr, code := runCLI("migrate", pact); code != 0 {
		t.Errorf("migrate a.pact: exit %d, %s", code, stderr)
	}
	_, stderr, code := runCLI("migrate", jql)
	if code != 2 || !strings.Contains(stderr, "unsupported file type (migrations are for PACT files)") {
		t.Errorf("migrate a.jql: exit %d, stderr %q; want 2 and the refusal", code, stderr)
	}
	// A directory walk takes only the files with migrations.
	if out, stderr, code := runCLI("migrate", dir); code != 0 || strings.Contains(out+stderr, "a.jql") {
		t.Errorf("migrate DIR: exit %d, %q %q", code, out, stderr)
	}
}
