package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/internal/junit"
	"github.com/ctxql/ctxql/syntax"
)

// caseFinding is one finding of a golden case, spans given by the text
// they cover (the first occurrence in the file).
type caseFinding struct {
	Path, Covers, Severity, Code, Message string
	Fixable                               bool
}

func severity(t *testing.T, s string) syntax.Severity {
	switch s {
	case "error":
		return syntax.SeverityError
	case "warning":
		return syntax.SeverityWarning
	case "info":
		return syntax.SeverityInfo
	case "hint":
		return syntax.SeverityHint
	}
	t.Fatalf("bad severity %q", s)
	return 0
}

// TestFormats renders the findings of each archive in testdata/report in
// every format and compares them with the archive's output sections; the
// machine-readable formats are also parsed back and checked for shape.
func TestFormats(t *testing.T) {
	golden.Run(t, "../testdata/report/*.txtar", func(t *testing.T, c *golden.Case) {
		var fs []Finding
		files := map[string]*syntax.File{}
		for _, line := range strings.Split(strings.TrimSpace(c.Input("findings")), "\n") {
			var cf caseFinding
			if err := json.Unmarshal([]byte(line), &cf); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			f := files[cf.Path]
			if f == nil {
				f = syntax.NewFile(cf.Path, c.Input("file:"+cf.Path))
				files[cf.Path] = f
			}
			i := strings.Index(f.Text(), cf.Covers)
			if i < 0 {
				t.Fatalf("%q not in %s", cf.Covers, cf.Path)
			}
			d := syntax.Diagnostic{Span: syntax.Sp(i, i+len(cf.Covers)), Severity: severity(t, cf.Severity), Code: cf.Code, Message: cf.Message}
			fs = append(fs, Finding{Path: cf.Path, File: f, Diag: d, Fixable: cf.Fixable})
		}
		opts := Options{Version: "1.2.3", Files: strings.Fields(c.InputOr("clean", "")),
			Rules: map[string]Rule{"PACT001": {Code: "PACT001", Name: "legacy-type-sugar", Summary: "Legacy type sugar", HelpURI: "https://ctxql.dev/rules/PACT001", Severity: syntax.SeverityError}}}
		for _, format := range Formats {
			var buf bytes.Buffer
			if err := Write(&buf, format, fs, opts); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			c.Want(format, buf.String())
			checkShape(t, format, buf.Bytes(), len(fs))
		}
	})
}

// checkShape parses machine-readable output back.
func checkShape(t *testing.T, format string, out []byte, n int) {
	t.Helper()
	switch format {
	case "json":
		var got []map[string]any
		if err := json.Unmarshal(out, &got); err != nil || len(got) != n {
			t.Fatalf("json: %d findings, %v", len(got), err)
		}
		for _, f := range got {
			for _, k := range []string{"file", "line", "column", "end_line", "end_column", "severity", "code", "message", "fixable"} {
				if _, ok := f[k]; !ok {
					t.Fatalf("json: key %s missing in %v", k, f)
				}
			}
		}
	case "sarif":
		var log sarifLog
		if err := json.Unmarshal(out, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != n {
			t.Fatalf("sarif: %v", err)
		}
		rules := log.Runs[0].Tool.Driver.Rules
		for _, r := range log.Runs[0].Results {
			if r.RuleIndex < 0 || r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
				t.Fatalf("sarif: ruleIndex %d does not name %s", r.RuleIndex, r.RuleID)
			}
			reg := r.Locations[0].Physical.Region
			if reg.StartLine < 1 || reg.StartColumn < 1 || reg.EndLine < reg.StartLine {
				t.Fatalf("sarif: bad region %+v", reg)
			}
		}
	case "junit":
		var s junit.Suites
		if err := xml.Unmarshal(out, &s); err != nil {
			t.Fatalf("junit: %v", err)
		}
	case "github":
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" && !strings.HasPrefix(l, "::") {
				t.Fatalf("github: %q is not a workflow command", l)
			}
		}
	}
}

// TestUnknownFormat checks the error names the formats.
func TestUnknownFormat(t *testing.T) {
	err := Write(&bytes.Buffer{}, "xml", nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "sarif") {
		t.Fatalf("err = %v", err)
	}
}

// TestDiff checks unified diffs, including a last line without a newline.
func TestDiff(t *testing.T) {
	if d := Diff("a.pact", "x\n", "x\n"); d != "" {
		t.Fatalf("equal texts: %q", d)
	}
	got := Diff("./q/a.pact", ".cb\n.mt:depth(1)\n", ".cb\n.mt\n")
	want := "--- a/q/a.pact\n+++ b/q/a.pact\n@@ -1,2 +1,2 @@\n .cb\n-.mt:depth(1)\n+.mt\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = Diff("a.pact", ".cb", ".cb\n")
	if !strings.Contains(got, "\\ No newline at end of file") {
		t.Fatalf("missing newline marker:\n%s", got)
	}
}

// TestTextClipsLongLines: a finding on a long line shows a window around
// its span with "…" on the clipped sides, the caret under the span (a tab
// before it kept), and a long span underlined for frameContext bytes.
func TestTextClipsLongLines(t *testing.T) {
	line := "\t" + strings.Repeat("a", 200) + "ÄXYZ" + strings.Repeat("b", 300)
	f := syntax.NewFile("q.jql", line+"\n")
	at := strings.Index(line, "XYZ")
	var buf bytes.Buffer
	writeFrame(&buf, f, syntax.Sp(at, at+3))
	// The padding counts characters: Ä is two bytes, one column.
	lo := at - frameContext
	want := "  …" + line[lo:at+3+frameContext] + "…\n  " + strings.Repeat(" ", len([]rune(line[lo:at]))+1) + "^~~\n"
	if buf.String() != want {
		t.Errorf("frame:\n%q\nwant\n%q", buf.String(), want)
	}
	// A span that runs to the end of the line is underlined for 60 bytes.
	buf.Reset()
	writeFrame(&buf, f, syntax.Sp(1, len(line)))
	lines := strings.Split(buf.String(), "\n")
	if got := strings.Count(lines[1], "~") + 1; got != frameContext || !strings.HasPrefix(lines[0], "  \t") || !strings.HasSuffix(lines[0], "…") {
		t.Errorf("long span frame:\n%s", buf.String())
	}
	// A short line is not clipped.
	buf.Reset()
	short := syntax.NewFile("q.pact", ".seg .block:summary\n")
	writeFrame(&buf, short, syntax.Sp(5, 19))
	if buf.String() != "  .seg .block:summary\n       ^~~~~~~~~~~~~~\n" {
		t.Errorf("short frame:\n%q", buf.String())
	}
}

// TestTextCapsFindingsPerFile: past MaxPerFile a file's findings are
// summed up in one line; the totals count every finding; other files keep
// their own budget; the JSON report keeps every finding.
func TestTextCapsFindingsPerFile(t *testing.T) {
	a := syntax.NewFile("a.pact", ".x\n.y\n.z\n")
	b := syntax.NewFile("b.pact", ".x\n")
	var fs []Finding
	for i := 0; i < 3; i++ {
		fs = append(fs, Finding{Path: "a.pact", File: a, Diag: syntax.Diagnostic{Span: syntax.Sp(i*3, i*3+2), Severity: syntax.SeverityWarning, Code: "X", Message: "m"}})
	}
	fs = append(fs, Finding{Path: "b.pact", File: b, Diag: syntax.Diagnostic{Span: syntax.Sp(0, 2), Severity: syntax.SeverityError, Code: "X", Message: "m"}})
	var buf bytes.Buffer
	if err := Write(&buf, "text", fs, Options{MaxPerFile: 1}); err != nil {
		t.Fatal(err)
	}
	want := "a.pact:1:1: warning: m [X]\n  .x\n  ^~\n" +
		"… and 2 more finding(s) in a.pact (print them with --max-findings 0)\n" +
		"b.pact:1:1: error: m [X]\n  .x\n  ^~\n" +
		"1 error(s), 3 warning(s)\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	Write(&buf, "json", fs, Options{MaxPerFile: 1})
	var out []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil || len(out) != 4 {
		t.Errorf("JSON: %v, %d findings", err, len(out))
	}
}
