package cli

import (
	"strings"
	"testing"
)

// TestEvalPactExplain checks the --explain table: one line per step and
// filter with its candidate count, and the step that emptied the query.
func TestEvalPactExplain(t *testing.T) {
	v1 := "../testdata/pact/spec-v1-fixture.json"
	out, errOut, code := runPact(t, "--explain", "--dialect", "v1", "--data", v1, "^seq .mt .cb[role='assistant'][kind='x']")
	want := "1:1    ^seq                      1\n" +
		"1:6    .mt                       2\n" +
		"1:10   .cb                       2\n" +
		"1:13   [role='assistant']        1\n" +
		"1:31   [kind='x']                0  <- emptied here\n" +
		"no match: [kind='x'] at 1:31 left no candidates\n"
	if code != 0 || out != want {
		t.Errorf("code %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	out, _, code = runPact(t, "--explain", "--data", v1, ".cb")
	if code != 0 || !strings.HasSuffix(out, "4 match(es)\n") {
		t.Errorf("code %d, stdout %q", code, out)
	}
	_, errOut, code = runPact(t, "--explain", "--data", v1, "@* .cb")
	if code != 1 || !strings.Contains(errOut, "single snapshot") {
		t.Errorf("@*: code %d, stderr %q", code, errOut)
	}
}
