package resultdiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/report"
	"github.com/ctxql/ctxql/syntax"

	"github.com/ctxql/ctxql/lang"
)

// Formats are the output formats of Write, the default first.
var Formats = []string{"text", "json", "sarif", "github"}

// Code is the diagnostic code of a changed result in SARIF and GitHub
// output.
const Code = "DIFF001"

// WriteOptions tune the output.
type WriteOptions struct {
	Version string // tool version, for SARIF
	// MaxItems caps the results listed per side of a change in text
	// output (0: 20); JSON lists every one.
	MaxItems int
}

// Write prints the report in format (one of Formats).
func Write(w io.Writer, format string, rep *Report, opts WriteOptions) error {
	switch format {
	case "", "text":
		return writeText(w, rep, opts)
	case "json":
		return writeJSON(w, rep)
	case "sarif", "github":
		return report.Write(w, format, findings(rep), report.Options{Version: opts.Version, Rules: map[string]report.Rule{
			Code: {Code: Code, Name: "query-results-changed", Summary: "A saved query selects other results than at the base revision",
				Severity: syntax.SeverityWarning},
		}})
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// Summary is a change's one-line description.
func (c Change) Summary() string {
	var b strings.Builder
	switch c.Status {
	case Added:
		fmt.Fprintf(&b, "new query with %d result(s)", c.Count)
	case Removed:
		fmt.Fprintf(&b, "query removed (it had %d result(s))", c.BaseCount)
	default:
		fmt.Fprintf(&b, "results changed: %d added, %d removed (%d → %d)", len(c.Added), len(c.Removed), c.BaseCount, c.Count)
	}
	if c.BasePath != "" {
		fmt.Fprintf(&b, "; renamed from %s", c.BasePath)
	}
	switch {
	case c.BaseError != "" && c.Error != "" && c.BaseError != c.Error:
		fmt.Fprintf(&b, "; error at the base: %s; error now: %s", c.BaseError, c.Error)
	case c.BaseError != "" && c.Error == "" && c.Status == Changed:
		fmt.Fprintf(&b, "; failed at the base: %s", c.BaseError)
	case c.Error != "":
		fmt.Fprintf(&b, "; error: %s", c.Error)
	case c.BaseError != "":
		fmt.Fprintf(&b, "; error at the base: %s", c.BaseError)
	}
	return b.String()
}

// label is what a change's subject is: a query, or a Datalog relation.
func (c Change) label() string {
	if l := lang.ByID(lang.ID(c.Language)); l != nil && l.Program() {
		return "relation"
	}
	return "query"
}

func writeText(w io.Writer, rep *Report, opts WriteOptions) error {
	limit := opts.MaxItems
	if limit <= 0 {
		limit = 20
	}
	for _, c := range rep.Changes {
		pos := c.File.Position(c.Span.Start)
		q := strings.TrimSpace(c.Query)
		if len(q) > 120 {
			q = q[:runeStart(q, 117)] + "…"
		}
		q = strings.ReplaceAll(q, "\n", " ")
		if _, err := fmt.Fprintf(w, "%s:%d:%d: %s %s: %s\n", c.Path, pos.Line, pos.Column, c.label(), q, c.Summary()); err != nil {
			return err
		}
		for _, side := range []struct {
			mark  string
			items []string
		}{{"+", c.Added}, {"-", c.Removed}} {
			for i, x := range side.items {
				if i == limit {
					fmt.Fprintf(w, "  %s … and %d more\n", side.mark, len(side.items)-limit)
					break
				}
				if len(x) > 200 {
					x = x[:runeStart(x, 197)] + "…"
				}
				fmt.Fprintf(w, "  %s %s\n", side.mark, x)
			}
		}
	}
	unchanged := ""
	if rep.Unchanged > 0 {
		unchanged = fmt.Sprintf("; %d unchanged file(s) not evaluated", rep.Unchanged)
	}
	_, err := fmt.Fprintf(w, "%d of %d quer%s changed results since %s (%s)%s\n", len(rep.Changes), rep.Queries,
		map[bool]string{true: "y", false: "ies"}[rep.Queries == 1], rep.Base, shortHash(rep.Commit), unchanged)
	return err
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// jsonChange is the JSON shape of a change: 1-based lines and byte columns,
// end exclusive, as in "ctxql check --format json".
type jsonChange struct {
	File      string   `json:"file"`
	BaseFile  string   `json:"base_file,omitempty"`
	Language  string   `json:"language"`
	Query     string   `json:"query"`
	Line      int      `json:"line"`
	Column    int      `json:"column"`
	EndLine   int      `json:"end_line"`
	EndColumn int      `json:"end_column"`
	Status    Status   `json:"status"`
	Added     []string `json:"added"`
	Removed   []string `json:"removed"`
	Count     int      `json:"count"`
	BaseCount int      `json:"base_count"`
	Error     string   `json:"error,omitempty"`
	BaseError string   `json:"base_error,omitempty"`
}

type jsonReport struct {
	Base      string       `json:"base"`
	Commit    string       `json:"commit"`
	Queries   int          `json:"queries"`
	Unchanged int          `json:"unchanged_files"`
	Changed   []jsonChange `json:"changed"`
}

func writeJSON(w io.Writer, rep *Report) error {
	out := jsonReport{Base: rep.Base, Commit: rep.Commit, Queries: rep.Queries, Unchanged: rep.Unchanged, Changed: []jsonChange{}}
	for _, c := range rep.Changes {
		s, e := c.File.Position(c.Span.Start), c.File.Position(c.Span.End)
		jc := jsonChange{File: c.Path, BaseFile: c.BasePath, Language: c.Language, Query: c.Query,
			Line: s.Line, Column: s.Column, EndLine: e.Line, EndColumn: e.Column, Status: c.Status,
			Added: c.Added, Removed: c.Removed, Count: c.Count, BaseCount: c.BaseCount, Error: c.Error, BaseError: c.BaseError}
		if jc.Added == nil {
			jc.Added = []string{}
		}
		if jc.Removed == nil {
			jc.Removed = []string{}
		}
		out.Changed = append(out.Changed, jc)
	}
	b, err := jsonenc.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// findings turns the changes into report findings (one per change, a
// warning at the query's span) for SARIF and GitHub annotations.
func findings(rep *Report) []report.Finding {
	var out []report.Finding
	for _, c := range rep.Changes {
		msg := c.Summary()
		if len(c.Added) > 0 {
			msg += "; added: " + list(c.Added, 5)
		}
		if len(c.Removed) > 0 {
			msg += "; removed: " + list(c.Removed, 5)
		}
		out = append(out, report.Finding{Path: c.Path, File: c.File,
			Diag: syntax.Diagnostic{Span: c.Span, Severity: syntax.SeverityWarning, Code: Code, Message: msg}})
	}
	return out
}

func list(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", … (%d more)", len(xs)-n)
}
