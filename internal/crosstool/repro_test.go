package crosstool

import (
	"testing"

	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/syntax/pact"
)

// repros are files on which the tools used to disagree; TestToolsAgree
// runs them with the corpus.
var repros = []entry{
	{origin: "repro/fmt-config-dialect", name: "q.pact", config: "dialect: {default: v1}\n",
		src: ".mt .cb:summary\n[ttl<1]\n.cb[ttl<1]\n"},
	{origin: "repro/select-hides-jql-error", name: "q.jql", config: "rules: {select: [JQL]}\n",
		src: `{"from": "activities", "limit": "x"}` + "\n"},
	{origin: "repro/select-hides-datalog-error", name: "q.dl", config: "rules: {select: [DL]}\n",
		src: `q(x) <-- p(x, "a\q").` + "\n"},
	{origin: "repro/vendor-controls", name: "q.pact",
		src: ".summary @foo=bar\n@t0 .block @mode=latest\n"},
	// v2 §3.7: @mode without a time prefix is invalid; fmt must not write
	// out the @t0 that would make it valid.
	{origin: "repro/mode-without-time", name: "q.pact",
		src: ".block @mode=latest\n.block   >  .cb\n"},
	{origin: "repro/vendor-controls-v1", name: "q.pact", config: "dialect: {default: v1}\n",
		src: ".cb @foo=bar\n"},
	// The dialect pragma on the second line of the leading comment block:
	// fmt, the editor's formatting, migrate and eval read the file as v1.
	{origin: "repro/pragma-line-2", name: "q.pact",
		src: "// data: ./d.json\n// pact: v1\n.mt .cb:hover\n"},
	{origin: "repro/pragma-after-query", name: "q.pact",
		src: ".mt\n// pact: v1\n.mt .cb:hover\n"},
	// A v1 file whose first selector gains "*" at offset 0 when migrated.
	{origin: "repro/migrate-anchorless-first", name: "q.pact", config: "dialect: {default: v1}\n",
		src: "[ttl<1]\n.mt .cb:summary\n"},
	{origin: "repro/datalog-string-directive", name: "q.dl",
		src: "e(\"a\", \"b\").\nq(x) <-- e(x, y), if x != \"// ctxql:ignore DL008\";\n"},
}

// TestVendorControlsAccepted pins pact-queries-v2 §4 ("allow @* and vendor
// @foo") and §5 ("allow vendor passthrough"): a query with a control the
// evaluator does not know is valid for check and eval alike.
func TestVendorControlsAccepted(t *testing.T) {
	for _, src := range []string{".summary @foo=bar", "@t0 .block @mode=latest"} {
		q, diags := pact.ParseQuery(src, pact.V2)
		if len(diags) > 0 {
			t.Fatalf("%q: %v", src, diags)
		}
		if _, err := evpact.Compile(q, src); err != nil {
			t.Fatalf("the evaluator refuses a vendor control (pact-queries-v2 §4): %q: %v", src, err)
		}
		dir := t.TempDir()
		path := materialize(t, dir, entry{name: "q.pact", src: src + "\n"})
		if code, out, errs := run("check", path); code != 0 {
			t.Errorf("check %q exits %d: %s%s", src, code, out, errs)
		}
	}
}
