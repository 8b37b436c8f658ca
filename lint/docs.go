package lint

import (
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/lang"
)

// fence returns the Markdown code-fence language of a rule's examples.
func fence(l analysis.Language) string {
	switch l {
	case analysis.PACT:
		return "text"
	case analysis.Markdown:
		return "markdown"
	}
	return string(l)
}

// RuleDoc renders one rule's documentation as Markdown, the page
// docs/rules/CODE.md and the text of "ctxql rules explain".
func RuleDoc(a *analysis.Analyzer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", a.Code, a.Name)
	fmt.Fprintf(&b, "%s.\n\n", a.Doc.Summary)
	fmt.Fprintf(&b, "| language | category | default severity | fix |\n| --- | --- | --- | --- |\n| %s | %s | %s | %s |\n\n",
		a.Language, a.Category, a.Severity, a.Fix)
	if a.Doc.Details != "" {
		fmt.Fprintf(&b, "%s\n\n", a.Doc.Details)
	}
	fmt.Fprintf(&b, "## Bad\n\n```%s\n%s\n```\n\n## Good\n\n```%s\n%s\n```\n\n", fence(a.Language), a.Doc.Bad, fence(a.Language), a.Doc.Good)
	fmt.Fprintf(&b, "Suppress one finding with `%s` on the line or the line above.\n", suppression(a))
	return b.String()
}

// suppression is the directive that silences a rule's finding, in the
// comment syntax of the rule's language (an HTML comment in Markdown;
// JQL's YAML files use "#" instead of "//").
func suppression(a *analysis.Analyzer) string {
	c := lang.Comment{Line: "//"}
	if l := lang.ByID(a.Language); l != nil {
		c = l.Comment(l.Extensions()[0])
	}
	return c.Wrap("ctxql:ignore " + a.Code + " -- reason")
}

// RuleIndex renders the index page docs/rules/README.md.
func RuleIndex(reg *analysis.Registry) string {
	var b strings.Builder
	b.WriteString("# ctxql rules\n\nGenerated from the rule registry (`go test ./lint -update` rewrites these pages; a test fails when they are stale).\n\n")
	b.WriteString("| code | name | language | severity | fix | summary |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, a := range reg.All() {
		fmt.Fprintf(&b, "| [%s](%s.md) | %s | %s | %s | %s | %s |\n", a.Code, a.Code, a.Name, a.Language, a.Severity, a.Fix, a.Doc.Summary)
	}
	return b.String()
}

// RuleURL is the documentation address of a diagnostic code, used by the
// language server's code descriptions and the SARIF report.
func RuleURL(code string) string { return "https://ctxql.dev/rules/" + code }
