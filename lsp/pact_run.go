package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	evalpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Hover explains the token under the cursor (syntax/pact.Describe), the
// rule behind a finding there, and the query's result count when the file
// has sample data.
func (l pactLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	pf := pactFile(s)
	if pf == nil {
		return "", syntax.Span{}, false
	}
	md, sp, ok := describePACT(pf, off)
	md, sp, ok = withRuleDocs(linterFor(l.linter, s), l.Diagnostics(ctx, s), off, md, sp, ok)
	if pf.QueryAt(off) != nil {
		md, sp, ok = withCount(ctx, s, off, md, sp, ok)
	}
	if !ok {
		return "", syntax.Span{}, false
	}
	text, sp, _ := withStep(ctx, s, l.Queries(s), off, pactTrace, md, sp, true)
	return text, sp, true
}

// Complete proposes roots, types, pseudo-classes, attribute keys,
// snapshots and controls, with the types and keys of the sample data.
func (pactLanguage) Complete(ctx context.Context, s *Snapshot, off int) []CompletionItem {
	pf := pactFile(s)
	if pf == nil {
		return nil
	}
	var known pactKnown
	if s.Workspace != nil {
		if path := s.Workspace.DataPath(s); path != "" {
			// The types and keys of the data, found once per data file
			// version. The language table has no vocabulary of loaded
			// data: the file is decoded for it and only the lists kept.
			v, err := s.Workspace.Load("pact-known", path, func(r *files.Reader, p string) (any, error) {
				d, err := evalpact.LoadFileFrom(r, p)
				if err != nil {
					return nil, err
				}
				return knownOf(d), nil
			})
			if err == nil {
				known, _ = v.(pactKnown)
			}
		}
	}
	var out []CompletionItem
	for _, c := range completePACT(pf, off, known) {
		edit := syntax.TextEdit{Span: c.Span, NewText: c.Text}
		out = append(out, CompletionItem{Label: c.Label, Kind: completionKind(c.Category), Detail: c.Detail, Edit: &edit})
	}
	return out
}

// completionKind maps a proposal's category to an LSP CompletionItemKind.
func completionKind(cat string) int {
	switch cat {
	case "root":
		return 9 // Module
	case "type":
		return 7 // Class
	case "pseudo":
		return 2 // Method
	case "attribute":
		return 10 // Property
	case "control":
		return 14 // Keyword
	case "time":
		return 21 // Constant
	}
	return 1 // Text
}

// knownOf lists the node types and attribute keys of the newest snapshot
// (the first 20,000 nodes).
func knownOf(d *evalpact.Data) pactKnown {
	types, keys := map[string]bool{}, map[string]bool{}
	s := d.Snapshots[len(d.Snapshots)-1]
	for i := range min(s.Len(), 20000) {
		n := s.Node(i)
		types[n.NodeType()] = true
		for _, a := range n.Attributes() {
			keys[a.Key] = true
		}
	}
	var k pactKnown
	for t := range types {
		k.Types = append(k.Types, t)
	}
	for t := range keys {
		k.Keys = append(k.Keys, t)
	}
	sort.Strings(k.Types)
	sort.Strings(k.Keys)
	return k
}

// Format formats the whole file with the language table's printer, under
// the document's resolved dialect.
func (pactLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	out, err := lang.ByID(lang.PACT).Format(s.File.Name(), []byte(s.File.Text()), s.Workspace.Dialect(s))
	if err != nil {
		return nil, err
	}
	return minimalEdit(s.File.Text(), string(out)), nil
}

// FormatRange formats the queries on the lines span touches, each as the
// whole-file formatter would (under the file's pragma), leaving the other
// lines alone.
func (pactLanguage) FormatRange(_ context.Context, s *Snapshot, span syntax.Span) ([]syntax.TextEdit, error) {
	pf := pactFile(s)
	if pf == nil {
		return nil, nil
	}
	if syntax.HasErrors(pf.Diagnostics) {
		return nil, &lang.SyntaxError{Diagnostics: pf.Diagnostics}
	}
	header := "// pact: " + pf.Dialect.String() + "\n"
	edits := []syntax.TextEdit{}
	first, last := s.File.LineOf(span.Start), s.File.LineOf(max(span.End-1, span.Start))
	for line := first; line <= last; line++ {
		start, end := s.File.LineStart(line), s.File.LineEnd(line)
		text := s.File.Text()[start:end]
		if strings.TrimSpace(text) == "" || (line == 0 && pf.Pragma != nil) {
			continue
		}
		out, err := lang.ByID(lang.PACT).Format(s.File.Name(), []byte(header+text), pf.Dialect)
		if err != nil {
			return nil, err
		}
		got := strings.TrimSuffix(strings.TrimPrefix(string(out), header), "\n")
		if got != text {
			edits = append(edits, syntax.TextEdit{Span: syntax.Sp(start, end), NewText: got})
		}
	}
	return edits, nil
}

// minimalEdit is one edit replacing the part between the common prefix
// and the common suffix of before and after (none when they are equal).
func minimalEdit(before, after string) []syntax.TextEdit {
	if before == after {
		return []syntax.TextEdit{}
	}
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	for p > 0 && !isRuneStart(before, p) {
		p--
	}
	q := 0
	for q < len(before)-p && q < len(after)-p && before[len(before)-1-q] == after[len(after)-1-q] {
		q++
	}
	for q > 0 && !isRuneStart(before, len(before)-q) {
		q--
	}
	// Neither end may fall between the "\r" and "\n" of a line break: an
	// LSP position cannot address that place, and clients clamp it to the
	// line's end.
	if p > 0 && before[p-1] == '\r' && p < len(before) && before[p] == '\n' {
		p--
	}
	if e := len(before) - q; q > 0 && e > 0 && before[e-1] == '\r' && before[e] == '\n' && q <= len(after)-p {
		q--
	}
	return []syntax.TextEdit{{Span: syntax.Sp(p, len(before)-q), NewText: after[p : len(after)-q]}}
}

func isRuneStart(s string, i int) bool { return i >= len(s) || s[i]&0xC0 != 0x80 }

// Queries lists the spans of the file's queries.
func (pactLanguage) Queries(s *Snapshot) []syntax.Span {
	pf := pactFile(s)
	if pf == nil {
		return nil
	}
	out := make([]syntax.Span, 0, len(pf.Queries))
	for _, q := range pf.Queries {
		out = append(out, q.Sp)
	}
	return out
}

// Run evaluates the query at off against the sample data, with a timeout.
// The evaluation is cached by the query's text, dialect and data version.
func (pactLanguage) Run(ctx context.Context, s *Snapshot, off int) (RunResult, bool) {
	pf := pactFile(s)
	if pf == nil || s.Workspace == nil {
		return RunResult{}, false
	}
	q := pf.QueryAt(off)
	path := s.Workspace.DataPath(s)
	if q == nil || path == "" {
		return RunResult{}, false
	}
	if q.Bad {
		return RunResult{Span: q.Sp, Err: errors.New("the query has syntax errors")}, true
	}
	id, err := s.dataID(path)
	if err != nil {
		return RunResult{Span: q.Sp, Err: err}, true
	}
	key := evalKey{kind: "pact-run", data: id.String(), path: path, dialect: int(q.Dialect), text: s.File.Slice(q.Sp)}
	v, err := s.Workspace.evals.get(ctx, key, func(ctx context.Context) (any, bool) {
		return evalPACT(ctx, s, q, path), true
	})
	if err != nil {
		return RunResult{}, false
	}
	res := v.(RunResult)
	res.Span = q.Sp
	return res, true
}

// evalPACT evaluates the query q of s over the data at path through the
// language table.
func evalPACT(ctx context.Context, s *Snapshot, q *pact.Query, path string) RunResult {
	var res RunResult
	data, err := s.Workspace.loadData(lang.PACT, path)
	if err != nil {
		res.Err = err
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	t0 := time.Now()
	r, err := lang.ByID(lang.PACT).Evaluate(ctx, data, lang.Query{Name: s.File.Name(), Src: s.File.Slice(q.Sp), Dialect: q.Dialect}, lang.Budget{})
	res.Elapsed = time.Since(t0)
	switch {
	case err != nil:
		res.Err = timeoutMessage(err, s.runTimeout())
	case r.Invalid():
		res.Err = errors.New(syntax.Invalid(r.Diagnostics)[0].Message)
	case r.Range:
		res.Count, res.Range, res.Result, res.Sample = r.Count, true, r.Items[0], r.Items
	default:
		ids := make([]string, len(r.Items))
		for i, it := range r.Items {
			ids[i], _ = it.(string)
		}
		res.Nodes = lang.DescribeNodes(data, ids[:min(len(ids), maxNodeSummaries)], previewLength)
		res.Count, res.Result = r.Count, r.Items
		res.Sample = r.Items[:min(len(r.Items), previewLimit)]
	}
	return res
}

// CodeLenses puts "▶ Run" above each query, with its result count once the
// sample data has been evaluated for this version.
func (l pactLanguage) CodeLenses(ctx context.Context, s *Snapshot) []CodeLens {
	return runLenses(ctx, s, l.Queries(s))
}

// spanArg marks a code lens argument the server turns into an LSP range.
type spanArg struct{ Span syntax.Span }

// InlayHints shows the candidate count after each step and filter of the
// queries in span (unless the inlayHints.steps setting is false) and the
// result count at the end of each.
func (l pactLanguage) InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint {
	qs := l.Queries(s)
	return append(stepHints(ctx, s, qs, span, pactTrace), countHints(ctx, s, qs, span)...)
}

// countHints evaluates the queries inside span and labels each with its
// result count at its end.
func countHints(ctx context.Context, s *Snapshot, spans []syntax.Span, span syntax.Span) []InlayHint {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	var out []InlayHint
	for _, sp := range spans {
		if sp.End < span.Start || sp.Start > span.End {
			continue
		}
		r, ok := run(ctx, s, sp.Start)
		if !ok || ctx.Err() != nil {
			continue
		}
		label := fmt.Sprintf(" → %d", r.Count)
		if r.Err != nil {
			label = " → error"
		}
		out = append(out, InlayHint{Offset: sp.End, Label: label})
	}
	return out
}

// DataDiagnostics warns about queries that match nothing in the sample
// data (at most the first 200 queries, each within the run timeout).
func (l pactLanguage) DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	var out []syntax.Diagnostic
	for i, sp := range l.Queries(s) {
		if i == 200 || ctx.Err() != nil {
			break
		}
		r, ok := run(ctx, s, sp.Start)
		if !ok || r.Err != nil || r.Count > 0 || r.Result == nil || r.Range {
			continue
		}
		d := syntax.Diagnostic{Span: sp, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
			Message: "matches nothing in the sample data " + s.Workspace.DataPath(s)}
		emptiedRelated(&d, pactTrace(ctx, s, sp.Start))
		out = append(out, d)
	}
	return out
}

// CodeNoMatch is the code of the data-aware "matches nothing" diagnostic.
const CodeNoMatch = "DATA001"

// maxNodeSummaries bounds the node summaries of one run; previewLength
// bounds a summary's content preview, in characters.
const (
	maxNodeSummaries = 1000
	previewLength    = 80
)

// oneLine renders an attribute value on one line.
func oneLine(v any) string {
	var str string
	if s, ok := v.(string); ok {
		str = s
	} else if b, err := json.Marshal(v); err == nil {
		str = string(b)
	} else {
		str = fmt.Sprint(v)
	}
	return strings.Join(strings.Fields(str), " ")
}

// clip cuts s to n characters, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
