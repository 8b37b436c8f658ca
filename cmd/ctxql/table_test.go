package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The tests of this file run the binary on the cases where the tools once
// disagreed about a file: how it is migrated, suppressed, commented,
// read under its pragmas and checked against its data.

// pactData is a one-snapshot PACT data set with a v1 namespaced type.
const pactData = `{"root": {"id": "r", "nodeType": "root", "children": [
  {"id": "t1", "nodeType": "mt", "children": [{"id": "h1", "nodeType": "cb:hover"}, {"id": "x1", "nodeType": "hover"}]}]}}`

// TestMigrateOutputParsesInTarget: migrating a pragma-less v1 file whose
// first selector gains a "*" at offset 0 writes the pragma first; the file
// then checks clean as v2 and evaluates as before.
func TestMigrateOutputParsesInTarget(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.pact"), "[ttl<1]\n.mt .cb:hover\n", 0o644)
	write(t, filepath.Join(dir, "d.json"), pactData, 0o644)
	before := ctxql(t, dir, nil, "eval", "pact", "--dialect", "v1", "--data", "d.json", ".mt .cb:hover")
	if r := ctxql(t, dir, nil, "migrate", "--dialect", "v1", "--to", "v2", "-w", "a.pact"); r.code != 0 {
		t.Fatalf("migrate: exit %d: %s", r.code, r.stderr)
	}
	if got, want := read(t, filepath.Join(dir, "a.pact")), "// pact: v2\n*[ttl<1]\n.mt *[nodeType='cb:hover']\n"; got != want {
		t.Fatalf("migrated file %q, want %q", got, want)
	}
	if r := ctxql(t, dir, nil, "check", "a.pact"); r.code != 0 {
		t.Errorf("check of the migrated file: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	after := ctxql(t, dir, nil, "eval", "pact", "--data", "d.json", ".mt *[nodeType='cb:hover']")
	if before.code != 0 || after.stdout != before.stdout {
		t.Errorf("results before %q (exit %d), after %q", before.stdout, before.code, after.stdout)
	}
}

// TestInlineIgnoreKeepsCheckErrors: an inline ignore of the rule that
// reports what the evaluator refuses does not hide it: check fails as eval
// does.
func TestInlineIgnoreKeepsCheckErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.pact"), "// ctxql:ignore PACT009\n.mt:nth(0)\n", 0o644)
	write(t, filepath.Join(dir, "d.json"), pactData, 0o644)
	r := ctxql(t, dir, nil, "check", "a.pact")
	if r.code != 1 || !strings.Contains(r.stdout, "[PACT009]") {
		t.Errorf("check: exit %d, output %s", r.code, r.stdout)
	}
	if e := ctxql(t, dir, nil, "eval", "pact", "--data", "d.json", ".mt:nth(0)"); e.code != 1 {
		t.Errorf("eval: exit %d", e.code)
	}
	// The same for a syntax error.
	write(t, filepath.Join(dir, "b.pact"), ".mt[ // ctxql:ignore pact-syntax\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "b.pact"); r.code != 1 {
		t.Errorf("check of a syntax error under an ignore: exit %d", r.code)
	}
}

// TestCommentSyntaxFromTable: a directive suppresses only inside a real
// comment of the file's language: never in a Datalog string literal, and
// in Markdown only as an HTML comment.
func TestCommentSyntaxFromTable(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.dl"), "e(\"a\", \"b\").\nq(x) <-- e(x, y), if x != \"// ctxql:ignore DL008\";\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "a.dl"); !strings.Contains(r.stdout, "[DL008]") {
		t.Errorf("a string literal suppressed DL008: %s", r.stdout)
	}
	write(t, filepath.Join(dir, "b.dl"), "e(\"a\", \"b\").\nq(x) <-- e(x, y); // ctxql:ignore DL008\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "b.dl"); strings.Contains(r.stdout, "[DL008]") {
		t.Errorf("a comment did not suppress DL008: %s", r.stdout)
	}
	write(t, filepath.Join(dir, "a.md"), "# Guide\n\n## CSS-like selectors <!-- ctxql:ignore DOC001 -->\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "a.md"); r.code != 0 || strings.Contains(r.stdout, "[DOC001]") {
		t.Errorf("an HTML comment did not suppress DOC001: exit %d %s", r.code, r.stdout)
	}
	write(t, filepath.Join(dir, "b.md"), "# Guide\n\n## CSS-like selectors // ctxql:ignore DOC001\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "b.md"); !strings.Contains(r.stdout, "[DOC001]") {
		t.Errorf(`"//" suppressed DOC001 in Markdown: %s`, r.stdout)
	}
	r := ctxql(t, dir, nil, "rules", "explain", "DOC001")
	if !strings.Contains(r.stdout, "<!-- ctxql:ignore DOC001") {
		t.Errorf("DOC001's page shows no HTML comment directive:\n%s", r.stdout)
	}
}

// TestEmptyDataPragma: an empty "// data:" says the file has no sample
// data, for check as for diff: the configuration's data does not apply.
func TestEmptyDataPragma(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".ctxql.yaml"), "data:\n  \"*.dl\": d.json\n", 0o644)
	write(t, filepath.Join(dir, "d.json"), `{"relations": {"path": {"param_types": ["String", "String"], "tuples": [["a", "b"]]}}}`, 0o644)
	write(t, filepath.Join(dir, "a.dl"), "q(x) <-- path(x, y);\n", 0o644)
	write(t, filepath.Join(dir, "b.dl"), "// data:\nq(x) <-- path(x, y);\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "a.dl"); strings.Contains(r.stdout, "unknown relation path") {
		t.Errorf("the configuration's data gave no schema: %s", r.stdout)
	}
	if r := ctxql(t, dir, nil, "check", "b.dl"); !strings.Contains(r.stdout, "unknown relation path") {
		t.Errorf("an empty data pragma still took the configuration's data: %s", r.stdout)
	}
}

// TestPragmaInLeadingBlock: a "// pact: v1" pragma on the second line,
// after the data pragma, sets the dialect for fmt, fix, migrate, check and
// diff; one after a query is an error, never a silent comment.
func TestPragmaInLeadingBlock(t *testing.T) {
	dir, git := gitRepo(t)
	src := "// data: ./d.json\n// pact: v1\n.mt .cb:hover\n"
	write(t, filepath.Join(dir, "a.pact"), src, 0o644)
	write(t, filepath.Join(dir, "d.json"), pactData, 0o644)
	if r := ctxql(t, dir, nil, "fmt", "-d", "a.pact"); r.code != 0 || r.stdout != "" {
		t.Errorf("fmt -d: exit %d\n%s", r.code, r.stdout)
	}
	if r := ctxql(t, dir, nil, "fix", "--diff", "a.pact"); r.code != 0 || r.stdout != "" {
		t.Errorf("fix --diff: exit %d\n%s", r.code, r.stdout)
	}
	if r := ctxql(t, dir, nil, "migrate", "a.pact"); r.code != 0 || r.stdout != src {
		t.Errorf("migrate: exit %d\n%s", r.code, r.stdout)
	}
	if r := ctxql(t, dir, nil, "migrate", "--to", "v2", "a.pact"); r.code != 0 || r.stdout != "// data: ./d.json\n// pact: v2\n.mt *[nodeType='cb:hover']\n" {
		t.Errorf("migrate --to v2: exit %d\n%s", r.code, r.stdout)
	}
	if r := ctxql(t, dir, nil, "check", "a.pact"); r.code != 0 {
		t.Errorf("check: exit %d\n%s", r.code, r.stdout)
	}
	// diff evaluates the file as v1: the type cb:hover (h2), not hover
	// (x2).
	git("add", ".")
	git("commit", "-qm", "base")
	write(t, filepath.Join(dir, "d.json"), strings.Replace(pactData, `{"id": "x1", "nodeType": "hover"}`,
		`{"id": "x1", "nodeType": "hover"}, {"id": "h2", "nodeType": "cb:hover"}, {"id": "x2", "nodeType": "hover"}`, 1), 0o644)
	if r := ctxql(t, dir, nil, "diff", "--format", "json"); !strings.Contains(r.stdout, `"h2"`) || strings.Contains(r.stdout, `"x2"`) {
		t.Errorf("diff read the file in the wrong dialect: %s%s", r.stdout, r.stderr)
	}
	write(t, filepath.Join(dir, "b.pact"), ".mt\n// pact: v1\n.mt .cb:hover\n", 0o644)
	if r := ctxql(t, dir, nil, "check", "b.pact"); r.code != 1 || !strings.Contains(r.stdout, "pact pragma must stand") {
		t.Errorf("a pragma after a query: exit %d\n%s", r.code, r.stdout)
	}
	if r := ctxql(t, dir, nil, "fmt", "-d", "b.pact"); r.code != 2 {
		t.Errorf("fmt of a file with a misplaced pragma: exit %d\n%s", r.code, r.stdout)
	}
}

// TestCheckDatalogDataSchema: check gives a Datalog program the schema of
// its sample data, named by its pragma or by .ctxql.yaml: a relation the
// data provides is not unknown.
func TestCheckDatalogDataSchema(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "d.json"), `{"relations": {"path": {"param_types": ["String", "String"], "tuples": [["a", "b"]]}}}`, 0o644)
	write(t, filepath.Join(dir, "a.dl"), "// data: ./d.json\nq(x) <-- path(x, y), e(y, x);\n", 0o644)
	r := ctxql(t, dir, nil, "check", "a.dl")
	if strings.Contains(r.stdout, "unknown relation path") || !strings.Contains(r.stdout, "unknown relation e") {
		t.Errorf("check with the data pragma:\n%s", r.stdout)
	}
	sub := filepath.Join(dir, "p")
	write(t, filepath.Join(sub, ".ctxql.yaml"), "data:\n  \"*.dl\": ../d.json\n", 0o644)
	write(t, filepath.Join(sub, "b.dl"), "q(x) <-- path(x, y);\n", 0o644)
	if r := ctxql(t, sub, nil, "check", "b.dl"); r.code != 0 || strings.Contains(r.stdout, "unknown relation") {
		t.Errorf("check with the configuration's data: exit %d\n%s", r.code, r.stdout)
	}
}
