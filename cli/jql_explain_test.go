package cli

import (
	"strings"
	"testing"
)

// TestEvalJQLExplain checks the --explain table of `ctxql eval jql`: the
// domain's documents, one line per where condition with the documents
// left, the condition (or cursor) that emptied the query, the summary
// line, and the exit codes of eval.
func TestEvalJQLExplain(t *testing.T) {
	data := writeJQLData(t)
	q := "from: activities\nwhere:\n  sessionId: s-1\n  artifacts.exitCode: {gt: 1, lt: 2}\n  type: {in: [progressUpdated, agentMessaged]}\n"
	out, errOut, code := runCLI("eval", "jql", "--explain", "--data", data, q)
	want := "1:7    from activities                                 2\n" +
		"3:3    sessionId eq s-1                                2\n" +
		"4:3    artifacts.exitCode gt 1                         1\n" +
		"4:31   artifacts.exitCode lt 2                         0  <- emptied here\n" +
		"5:3    type in [progressUpdated, agentMessaged]        0\n" +
		"no match: artifacts.exitCode lt 2 at 4:31 left no documents\n"
	if code != 0 || out != want {
		t.Errorf("emptied: code %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}

	out, errOut, code = runCLI("eval", "jql", "--explain", "--data", data, `{from: 'activities', where: {sessionId: 's-1', 'artifacts.exitCode': {neq: 0}}, limit: 1}`)
	want = "1:8    from activities                 2\n" +
		"1:30   sessionId eq 's-1'              2\n" +
		"1:48   artifacts.exitCode neq 0        1\n" +
		"1 document(s) returned (limit 1)\n"
	if code != 0 || out != want {
		t.Errorf("match: code %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}

	out, _, code = runCLI("eval", "jql", "--explain", "--data", data, `{from: 'activities', where: {sessionId: 's-1'}, startAfter: 'a2', order: 'asc'}`)
	if code != 0 || !strings.Contains(out, `1:61   startAfter "a2"           0  <- emptied here`) || !strings.HasSuffix(out, "no match: startAfter \"a2\" at 1:61 left no documents\n") {
		t.Errorf("cursor: code %d, stdout:\n%s", code, out)
	}

	_, errOut, code = runCLI("eval", "jql", "--explain", "--data", data, `{"from": "activities", "where": {"nope": 1}}`)
	if code != 1 || !strings.Contains(errOut, "query:1:35: InvalidPath") {
		t.Errorf("invalid query: code %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCLI("eval", "jql", "--explain", "--data", writeBad(t), `{"from": "activities"}`)
	if code != 2 {
		t.Errorf("bad data: code %d, stderr %q", code, errOut)
	}
	_, _, code = runCLI("eval", "jql", "--explain", `{"from": "activities"}`)
	if code != 2 {
		t.Errorf("no --data: code %d", code)
	}
}
