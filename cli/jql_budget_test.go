package cli

import (
	"strings"
	"testing"
)

// TestEvalJQLMaxBytes: a result over --max-bytes fails with exit 2 and a
// message naming the limit and the flag; a larger value lets it through.
func TestEvalJQLMaxBytes(t *testing.T) {
	data := writeJQLData(t)
	q := `{"from": "activities", "select": ["*"]}`
	out, errs, code := runCLI("eval", "jql", "--max-bytes", "100", "--data", data, q)
	if code != 2 || out != "" || !strings.Contains(errs, "100 bytes") || !strings.Contains(errs, "--max-bytes") {
		t.Errorf("over budget: code %d, stdout %q, stderr %q", code, out, errs)
	}
	out, errs, code = runCLI("eval", "jql", "--max-bytes", "100000", "--data", data, q)
	if code != 0 || !strings.Contains(out, `"a1"`) {
		t.Errorf("within budget: code %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, errs, code = runCLI("eval", "jql", "--max-bytes", "0", "--data", data, q); code != 2 || !strings.Contains(errs, "--max-bytes") {
		t.Errorf("zero budget: code %d, stderr %q", code, errs)
	}
}
