package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Output formats of the CLI.
const (
	FormatDefault = ""
	FormatJSON    = "json"
	FormatPretty  = "pretty"
	FormatTable   = "table"
	FormatPlain   = "plain"
)

// QueryKinds are the named `query` subcommands; any other first argument is
// a jq expression.
var queryKinds = map[string]bool{"symbol": true, "file": true, "callers": true, "callees": true,
	"domains": true, "domain": true, "stats": true, "search": true}

// IsQueryKind reports whether word names a `query` subcommand.
func IsQueryKind(word string) bool { return queryKinds[word] }

// QueryOptions configure RunQuery.
type QueryOptions struct {
	Format  string
	Limits  JQLimits
	Stderr  io.Writer
	NoArgOK bool
}

// UsageError is a wrong use of a query (missing or extra arguments).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// RunQuery runs `query KIND ARG` (or a jq expression when args[0] is not a
// kind) and writes the result to w in the chosen format.
func RunQuery(ctx context.Context, ix *Index, args []string, w io.Writer, o QueryOptions) error {
	if len(args) == 0 {
		return &UsageError{"query: missing KIND or jq expression"}
	}
	kind := args[0]
	if !IsQueryKind(kind) {
		if len(args) > 1 {
			return &UsageError{"query: a jq expression takes no further arguments"}
		}
		return runJQ(ctx, ix, kind, w, o)
	}
	needArg := kind != "domains" && kind != "stats"
	if needArg && len(args) != 2 {
		return &UsageError{fmt.Sprintf("query %s: want exactly one argument", kind)}
	}
	if !needArg && len(args) != 1 {
		return &UsageError{fmt.Sprintf("query %s: takes no argument", kind)}
	}
	switch kind {
	case "symbol":
		syms, err := ix.Symbol(args[1])
		if err != nil {
			return err
		}
		if len(syms) > 1 && o.Stderr != nil {
			others := make([]string, 0, len(syms)-1)
			for _, s := range syms[1:] {
				others = append(others, s.QualifiedName)
			}
			fmt.Fprintf(o.Stderr, "warning: %q is ambiguous; also: %s\n", args[1], strings.Join(others, ", "))
		}
		s := syms[0]
		return writeRecord(w, o.Format, s.View(), [][2]string{
			{"name", s.Name}, {"qualified_name", s.QualifiedName}, {"type", s.Type}, {"file", s.File},
			{"lines", linesText(s.Lines)}, {"signature", s.Signature}, {"summary", s.Summary}})
	case "file":
		f, err := ix.File(args[1])
		if err != nil {
			return err
		}
		return writeRecord(w, o.Format, f, [][2]string{
			{"path", f.Path}, {"module", f.Module}, {"summary", f.Summary}, {"lines", itoa(f.Lines)},
			{"language", f.Language}, {"domains", strings.Join(f.Domains, ", ")}, {"layer", f.Layer}, {"stability", f.Stability}})
	case "domain":
		d, err := ix.Domain(args[1])
		if err != nil {
			return err
		}
		return writeRecord(w, o.Format, d, [][2]string{
			{"name", d.Name}, {"description", d.Description}, {"files", strings.Join(d.Files, ", ")}, {"symbols", strings.Join(d.Symbols, ", ")}})
	case "callers", "callees":
		var l []string
		var err error
		if kind == "callers" {
			l, err = ix.Callers(args[1])
		} else {
			l, err = ix.Callees(args[1])
		}
		if err != nil {
			return err
		}
		return writeList(w, o.Format, l)
	case "search":
		r := ix.Search(args[1])
		t := tabular{header: []string{"KIND", "NAME"}}
		for _, s := range r.Symbols {
			t.rows = append(t.rows, []string{"symbol", s})
			t.lines = append(t.lines, s)
		}
		for _, f := range r.Files {
			t.rows = append(t.rows, []string{"file", f})
			t.lines = append(t.lines, f)
		}
		t.plain = t.lines
		return t.write(w, o.Format, r)
	case "domains":
		ds := ix.DomainSummaries()
		t := tabular{header: []string{"DOMAIN", "FILES", "SYMBOLS"}}
		for _, d := range ds {
			t.rows = append(t.rows, []string{d.Name, itoa(d.Files), itoa(d.Symbols)})
			t.plain = append(t.plain, d.Name)
			t.lines = append(t.lines, fmt.Sprintf("%s: %d files, %d symbols", d.Name, d.Files, d.Symbols))
		}
		return t.write(w, o.Format, ds)
	case "stats":
		s := ix.Stats()
		cov := fnum(s.Coverage) + "%"
		t := tabular{
			header: []string{"FILES", "SYMBOLS", "LINES", "COVERAGE", "DOMAINS", "LAYERS"},
			rows:   [][]string{{itoa(s.Files), itoa(s.Symbols), itoa(s.Lines), cov, itoa(s.Domains), itoa(s.Layers)}},
			lines: []string{"Files: " + itoa(s.Files), "Symbols: " + itoa(s.Symbols), "Lines: " + itoa(s.Lines),
				"Coverage: " + cov, "Domains: " + itoa(s.Domains), "Layers: " + itoa(s.Layers)},
		}
		t.plain = t.lines
		return t.write(w, o.Format, s)
	}
	return &UsageError{"query: unknown kind " + kind}
}

func fnum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func itoa(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

func linesText(l []int) string {
	parts := make([]string, len(l))
	for i, n := range l {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "-")
}

// tabular is a query answer in its text forms: a table with a header for
// --table, lines for --plain, and lines for the terminal default.
type tabular struct {
	header []string
	rows   [][]string
	plain  []string
	lines  []string
}

// write prints v as JSON for --json/--pretty, else the matching text form.
func (t tabular) write(w io.Writer, format string, v any) error {
	switch format {
	case FormatJSON, FormatPretty:
		return writeJSON(w, v, format == FormatPretty)
	case FormatTable:
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.header, "\t"))
		for _, r := range t.rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		return tw.Flush()
	case FormatPlain:
		return writeLines(w, t.plain)
	default:
		return writeLines(w, t.lines)
	}
}

func writeLines(w io.Writer, lines []string) error {
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// writeRecord prints a record: JSON (pretty by default), or for --table and
// --plain its non-empty fields as "key<TAB>value" / "key: value" lines.
func writeRecord(w io.Writer, format string, v any, fields [][2]string) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, v, false)
	case FormatTable:
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, f := range fields {
			if f[1] != "" {
				fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
			}
		}
		return tw.Flush()
	case FormatPlain:
		for _, f := range fields {
			if f[1] != "" {
				fmt.Fprintf(w, "%s: %s\n", f[0], f[1])
			}
		}
		return nil
	default:
		return writeJSON(w, v, true)
	}
}

// writeList prints a list of names: one per line by default and for
// --plain/--table, a JSON array for --json/--pretty.
func writeList(w io.Writer, format string, l []string) error {
	switch format {
	case FormatJSON, FormatPretty:
		return writeJSON(w, l, format == FormatPretty)
	default:
		for _, s := range l {
			fmt.Fprintln(w, s)
		}
		return nil
	}
}

// writeJSON writes v as JSON followed by a newline; pretty indents by two
// spaces and keeps short arrays of scalars on one line, as the
// specification's examples do.
func writeJSON(w io.Writer, v any, pretty bool) error {
	b, err := MarshalJSON(v, pretty)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MarshalJSON encodes v without HTML escaping; pretty output indents by two
// spaces and writes short arrays of scalars on one line.
func MarshalJSON(v any, pretty bool) ([]byte, error) {
	indent := ""
	if pretty {
		indent = "  "
	}
	b, err := jsonenc.MarshalIndent(v, "", indent)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	if pretty {
		b = compactScalarArrays(b)
	}
	return b, nil
}

// compactScalarArrays rewrites indented arrays whose elements are all
// scalars onto one line when the result is short, as in
// "lines": [45, 89] and "quality": ["security-review"].
func compactScalarArrays(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); {
		switch b[i] {
		case '[':
			if elems, end, ok := scalarArray(b, i); ok && len(elems) > 0 {
				one := "[" + strings.Join(elems, ", ") + "]"
				if lineLen(out.Bytes())+len(one) <= maxInlineArray {
					out.WriteString(one)
					i = end
					continue
				}
			}
		case '"':
			j := skipString(b, i)
			out.Write(b[i:j])
			i = j
			continue
		}
		out.WriteByte(b[i])
		i++
	}
	return out.Bytes()
}

const maxInlineArray = 80

func lineLen(b []byte) int {
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		return len(b) - k - 1
	}
	return len(b)
}

func skipString(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' {
			j++
		}
		j++
	}
	if j < len(b) {
		j++
	}
	return j
}

// scalarArray reads the array starting at b[i] when all its elements are
// scalars, returning their texts and the offset after "]".
func scalarArray(b []byte, i int) ([]string, int, bool) {
	var elems []string
	k := i + 1
	skipWS := func() {
		for k < len(b) && (b[k] == ' ' || b[k] == '\n') {
			k++
		}
	}
	skipWS()
	if k < len(b) && b[k] == ']' {
		return nil, k + 1, false
	}
	for k < len(b) {
		s := k
		if b[k] == '"' {
			k = skipString(b, k)
		} else {
			for k < len(b) && strings.IndexByte("-+.eE0123456789truefalsn", b[k]) >= 0 {
				k++
			}
		}
		if k == s {
			return nil, 0, false
		}
		elems = append(elems, string(b[s:k]))
		skipWS()
		if k < len(b) && b[k] == ',' {
			k++
			skipWS()
			continue
		}
		if k < len(b) && b[k] == ']' {
			return elems, k + 1, true
		}
		return nil, 0, false
	}
	return nil, 0, false
}

func runJQ(ctx context.Context, ix *Index, expr string, w io.Writer, o QueryOptions) error {
	q, err := CompileJQ(expr)
	if err != nil {
		return err
	}
	input, err := ix.Raw()
	if err != nil {
		return err
	}
	res, err := q.Run(ctx, input, o.Limits)
	var buf bytes.Buffer
	for _, v := range res {
		if werr := writeJQValue(&buf, v, o.Format); werr != nil {
			return werr
		}
	}
	if _, werr := w.Write(buf.Bytes()); werr != nil {
		return werr
	}
	return err
}

func writeJQValue(w io.Writer, v any, format string) error {
	switch format {
	case FormatPlain:
		if s, ok := v.(string); ok {
			_, err := fmt.Fprintln(w, s)
			return err
		}
		return writeJSON(w, v, false)
	case FormatTable:
		if rows, ok := v.([]any); ok {
			return writeTable(w, rows)
		}
		return writeJSON(w, v, false)
	case FormatJSON:
		return writeJSON(w, v, false)
	default:
		return writeJSON(w, v, true)
	}
}

// writeTable prints an array: objects as columns of their sorted keys,
// anything else one value per line.
func writeTable(w io.Writer, rows []any) error {
	keys := map[string]bool{}
	for _, r := range rows {
		m, ok := r.(map[string]any)
		if !ok {
			for _, r := range rows {
				if s, ok := r.(string); ok {
					fmt.Fprintln(w, s)
				} else if err := writeJSON(w, r, false); err != nil {
					return err
				}
			}
			return nil
		}
		for k := range m {
			keys[k] = true
		}
	}
	cols := make([]string, 0, len(keys))
	for k := range keys {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(cols, "\t")))
	for _, r := range rows {
		m := r.(map[string]any)
		cells := make([]string, len(cols))
		for i, c := range cols {
			switch x := m[c].(type) {
			case nil:
			case string:
				cells[i] = x
			default:
				b, _ := MarshalJSON(x, false)
				cells[i] = string(b)
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// IsNotFound reports whether err is a lookup that found nothing.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// LimitsWithTimeout returns default limits with the given timeout.
func LimitsWithTimeout(d time.Duration) JQLimits { return JQLimits{Timeout: d} }
