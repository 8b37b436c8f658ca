package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	evaljql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Queries lists the spans of the document's queries.
func (jqlLanguage) Queries(s *Snapshot) []syntax.Span {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	var out []syntax.Span
	for _, q := range jf.Queries {
		if q != nil {
			out = append(out, q.Sp)
		}
	}
	return out
}

// Run evaluates the query at off against the sample data (a sessions and
// activities file or directory, as `ctxql eval jql --data` reads). The
// evaluation is cached by the query's text and the data version.
func (l jqlLanguage) Run(ctx context.Context, s *Snapshot, off int) (RunResult, bool) {
	jf := jqlFile(s)
	if jf == nil || s.Workspace == nil {
		return RunResult{}, false
	}
	path := s.Workspace.DataPath(s)
	var q *jql.Query
	for _, c := range jf.Queries {
		if c != nil && c.Sp.Touches(off) {
			q = c
		}
	}
	if q == nil || path == "" {
		return RunResult{}, false
	}
	id, err := s.dataID(path)
	if err != nil {
		return RunResult{Span: q.Sp, Err: err}, true
	}
	key := evalKey{kind: "jql-run" + jqlFormat(s), data: id.String(), path: path, text: s.File.Slice(q.Sp)}
	v, err := s.Workspace.evals.get(ctx, key, func(ctx context.Context) (any, bool) {
		return evalJQL(ctx, s, q, path), true
	})
	if err != nil {
		return RunResult{}, false
	}
	res := v.(RunResult)
	res.Span = q.Sp
	return res, true
}

// jqlFormat is the file name suffix of a JQL document, which decides how
// its queries are read (JSON or YAML): part of an evaluation's key.
func jqlFormat(s *Snapshot) string {
	return strings.ToLower(path.Ext(s.File.Name()))
}

// evalJQL evaluates the query q of s over the data at path through the
// language table.
func evalJQL(ctx context.Context, s *Snapshot, q *jql.Query, path string) RunResult {
	var res RunResult
	data, err := s.Workspace.loadData(lang.JQL, path)
	if err != nil {
		res.Err = err
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	t0 := time.Now()
	r, err := lang.ByID(lang.JQL).Evaluate(ctx, data, lang.Query{Name: s.File.Name(), Src: s.File.Slice(q.Sp)}, lang.Budget{})
	res.Elapsed = time.Since(t0)
	switch {
	case err != nil:
		res.Err = timeoutMessage(err, s.runTimeout())
	case r.Invalid():
		res.Err = errors.New(syntax.Invalid(r.Diagnostics)[0].Message)
	default:
		res.Count, res.Result = r.Count, r.Items
		res.Sample = r.Items[:min(len(r.Items), previewLimit)]
	}
	return res
}

// CodeLenses puts "▶ Run" above each query when the document has data.
func (l jqlLanguage) CodeLenses(ctx context.Context, s *Snapshot) []CodeLens {
	return runLenses(ctx, s, l.Queries(s))
}

// InlayHints shows the documents left after each where condition of the
// queries in span (unless the inlayHints.steps setting is false) and each
// query's result count at its end.
func (l jqlLanguage) InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint {
	qs := l.Queries(s)
	return append(stepHints(ctx, s, qs, span, jqlTrace), countHints(ctx, s, qs, span)...)
}

// InlayHints shows the tuple count of each rule's relation at its end.
func (l datalogLanguage) InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint {
	return countHints(ctx, s, l.Queries(s), span)
}

// Queries lists the spans of the program's rules.
func (datalogLanguage) Queries(s *Snapshot) []syntax.Span {
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	var out []syntax.Span
	for _, r := range p.Rules {
		out = append(out, r.Sp)
	}
	return out
}

// datalogRun is the evaluation of a whole program over the sample data,
// through the language table.
type datalogRun struct {
	data    lang.Data
	rels    map[string][][]string // the derived relations
	invalid bool                  // the program has errors: nothing derived
	err     error
	elapsed time.Duration
}

// relationCount returns the number of tuples of a relation after the
// program ran: derived (data tuples included) or from the data alone.
func (r datalogRun) relationCount(name string) (int, bool) {
	if rows, ok := r.rels[name]; ok {
		return len(rows), true
	}
	n, ok := lang.RelationSizes(r.data)[name]
	return n, ok
}

// evaluate evaluates the document's program over its sample data, cached
// by the program's text and the data version.
func (datalogLanguage) evaluate(ctx context.Context, s *Snapshot) (datalogRun, bool) {
	p := datalogProgram(s)
	if p == nil || s.Workspace == nil {
		return datalogRun{}, false
	}
	path := s.Workspace.DataPath(s)
	if path == "" {
		return datalogRun{}, false
	}
	id, err := s.dataID(path)
	if err != nil {
		return datalogRun{err: err}, true
	}
	key := evalKey{kind: "datalog", data: id.String(), path: path, text: s.File.Name() + "\x00" + s.File.Text()}
	v, err := s.Workspace.evals.get(ctx, key, func(ctx context.Context) (any, bool) {
		data, err := s.Workspace.loadData(lang.Datalog, path)
		if err != nil {
			return datalogRun{err: err}, true
		}
		t0 := time.Now()
		res, err := evalProgram(ctx, s, data, s.File.Text())
		run := datalogRun{data: data, err: err, elapsed: time.Since(t0)}
		if err == nil {
			run.rels, run.invalid = res.Value.(map[string][][]string), res.Invalid()
		}
		return run, true
	})
	if err != nil {
		return datalogRun{}, false
	}
	return v.(datalogRun), true
}

// evalProgram evaluates the Datalog program text over data within the run
// timeout.
func evalProgram(ctx context.Context, s *Snapshot, data lang.Data, text string) (*lang.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	res, err := lang.ByID(lang.Datalog).Evaluate(ctx, data, lang.Query{Name: s.File.Name(), Src: text, Program: true}, lang.Budget{})
	return res, timeoutMessage(err, s.runTimeout())
}

// Run evaluates the program and returns the tuples of the relation the
// rule at off derives.
func (l datalogLanguage) Run(ctx context.Context, s *Snapshot, off int) (RunResult, bool) {
	p := datalogProgram(s)
	if p == nil {
		return RunResult{}, false
	}
	var rule *datalog.Rule
	for _, r := range p.Rules {
		if r.Sp.Touches(off) {
			rule = r
		}
	}
	if rule == nil || rule.Head == nil {
		return RunResult{}, false
	}
	run, ok := l.evaluate(ctx, s)
	if !ok {
		return RunResult{}, false
	}
	res := RunResult{Span: rule.Sp, Elapsed: run.elapsed}
	switch {
	case run.err != nil:
		res.Err = run.err
	case run.invalid:
		res.Err = errors.New("the program has errors")
	default:
		rows := run.rels[rule.Head.Name.Name]
		out := make([]any, len(rows))
		for i, r := range rows {
			out[i] = r
		}
		res.Count, res.Result, res.Sample = len(out), out, out[:min(len(out), previewLimit)]
		res.Relation, res.Columns = rule.Head.Name.Name, columnsOf(rule, datalog.Check(p, run.data.Schema()))
	}
	return res, true
}

// columnsOf names the columns of the relation a rule derives after its
// head's variables, typed by the checker.
func columnsOf(rule *datalog.Rule, info *datalog.Info) []Column {
	var types []string
	if info != nil {
		if ri := info.Relations[rule.Head.Name.Name]; ri != nil {
			types = ri.Types
		}
	}
	cols := make([]Column, len(rule.Head.Args))
	for i, a := range rule.Head.Args {
		cols[i].Name = fmt.Sprintf("_%d", i+1)
		if a != nil && a.Kind == datalog.Var && a.Value != "" {
			cols[i].Name = a.Value
		}
		if i < len(types) {
			cols[i].Type = types[i]
		}
	}
	return cols
}

// CodeLenses puts "▶ Run" above each rule when the document has data.
func (l datalogLanguage) CodeLenses(ctx context.Context, s *Snapshot) []CodeLens {
	return runLenses(ctx, s, l.Queries(s))
}

// DataDiagnostics reports rules whose relation derives nothing over the
// sample data.
func (l datalogLanguage) DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := datalogProgram(s)
	run, ok := l.evaluate(ctx, s)
	if !ok || p == nil || run.err != nil || run.invalid {
		return nil
	}
	var out []syntax.Diagnostic
	probes := 0
	for _, r := range p.Rules {
		if r.Head == nil || r.IsFact() {
			continue
		}
		if len(run.rels[r.Head.Name.Name]) == 0 {
			d := syntax.Diagnostic{Span: r.Head.Name.Sp, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
				Message: fmt.Sprintf("%s derives nothing from the sample data %s", r.Head.Name.Name, s.Workspace.DataPath(s))}
			if probes < maxProbedRules && ctx.Err() == nil {
				probes++
				if rel, ok := firstFailing(ctx, s, run, r); ok {
					d.Related = append(d.Related, rel)
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// maxProbedRules bounds the rules whose first failing body item is looked
// for in one diagnosis.
const maxProbedRules = 20

// firstFailing finds the first body item of rule r after which the body
// matches nothing over the sample data: a positive atom over an empty
// relation, or else the shortest prefix of the body that a probe rule
// (the prefix, with its variables as head) finds no tuple for. Each probe
// evaluates the program once, within the run timeout.
func firstFailing(ctx context.Context, s *Snapshot, run datalogRun, r *datalog.Rule) (syntax.RelatedInfo, bool) {
	src := s.File.Text()
	for _, b := range r.Body {
		if a := b.Atom; a != nil && !a.Negated {
			if n, _ := run.relationCount(a.Name.Name); n == 0 {
				return syntax.RelatedInfo{Span: a.Sp, Message: fmt.Sprintf("%s holds no tuple in the sample data", a.Name.Name)}, true
			}
		}
	}
	if run.data == nil {
		return syntax.RelatedInfo{}, false
	}
	var vars []string
	seen := map[string]bool{}
	for k, b := range r.Body {
		if a := b.Atom; a != nil && !a.Negated {
			for _, t := range a.Args {
				if t != nil && t.Kind == datalog.Var && t.Value != "_" && !seen[t.Value] {
					seen[t.Value] = true
					vars = append(vars, t.Value)
				}
			}
		}
		if len(vars) == 0 {
			continue
		}
		var items []string
		for _, bi := range r.Body[:k+1] {
			items = append(items, src[bi.Span().Start:bi.Span().End])
		}
		const probe = "ctxql_probe__"
		text := src + "\n" + probe + "(" + strings.Join(vars, ", ") + ") <-- " + strings.Join(items, ", ") + ";\n"
		res, err := evalProgram(ctx, s, run.data, text)
		if err != nil || res.Invalid() {
			return syntax.RelatedInfo{}, false
		}
		if rels, _ := res.Value.(map[string][][]string); len(rels[probe]) == 0 {
			what := "no tuple matches the rule's body up to here"
			if b.Atom != nil {
				what = fmt.Sprintf("no tuple of %s joins the body items before it", b.Atom.Name.Name)
			}
			return syntax.RelatedInfo{Span: b.Span(), Message: what}, true
		}
	}
	return syntax.RelatedInfo{}, false
}

// DataDiagnostics reports queries that return nothing from the sample data
// and field paths that no sample document has.
func (l jqlLanguage) DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	jf := jqlFile(s)
	if jf == nil || s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	path := s.Workspace.DataPath(s)
	var out []syntax.Diagnostic
	for _, q := range jf.Queries {
		if q == nil {
			continue
		}
		docs := sampleDocs(s.Workspace, path, q.Domain())
		if docs == nil {
			continue
		}
		var paths []jql.Path
		for _, it := range q.Select {
			if !it.Star {
				paths = append(paths, it.Path)
			}
		}
		for _, c := range q.Where {
			paths = append(paths, c.Path)
		}
		for _, p := range paths {
			if len(p.Segments) == 0 || anyHas(docs, p.Names()) {
				continue
			}
			out = append(out, syntax.Diagnostic{Span: p.Sp, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
				Message: fmt.Sprintf("no document of the sample data %s has %s", path, p.Text)})
		}
		if r, ok := run(ctx, s, q.Sp.Start); ok && r.Err == nil && r.Count == 0 {
			d := syntax.Diagnostic{Span: q.Sp, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
				Message: "returns nothing from the sample data " + path}
			emptiedRelated(&d, jqlTrace(ctx, s, q.Sp.Start))
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// sampleDocs returns the first 1,000 documents of a domain from the
// sample data, read once per data file version, or nil.
func sampleDocs(ws *workspace, path, domain string) []any {
	v, err := ws.Load("jql-sample:"+domain, path, func(r *files.Reader, p string) (any, error) {
		var docs []any
		stop := errors.New("enough")
		err := evaljql.File{Path: p, Files: r}.Scan(context.Background(), domain, func(raw []byte) error {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				docs = append(docs, v)
			}
			if len(docs) == 1000 {
				return stop
			}
			return nil
		})
		if err != nil && !errors.Is(err, stop) {
			return nil, err
		}
		return docs, nil
	})
	if err != nil {
		return nil
	}
	docs, _ := v.([]any)
	return docs
}

// anyHas reports whether some document has the path (arrays are crossed).
func anyHas(docs []any, names []string) bool {
	for _, d := range docs {
		if has(d, names) {
			return true
		}
	}
	return false
}

func has(v any, names []string) bool {
	if len(names) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[names[0]]
		return ok && has(c, names[1:])
	case []any:
		for _, e := range x {
			if has(e, names) {
				return true
			}
		}
	}
	return false
}

// runLenses puts a Run lens above each span when the document has data,
// with the result count once known; without data, one lens above the
// first query offers to choose the sample data (CommandChooseData).
func runLenses(ctx context.Context, s *Snapshot, spans []syntax.Span) []CodeLens {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		if len(spans) == 0 {
			return nil
		}
		return []CodeLens{{Span: spans[0], Title: "▶ Run — choose sample data…", Command: CommandChooseData, Arguments: []any{s.URI}}}
	}
	var out []CodeLens
	cached, _ := cachedOnly(ctx)
	for _, sp := range spans {
		title := "▶ Run"
		if r, ok := run(cached, s, sp.Start); ok && r.Err == nil {
			title = fmt.Sprintf("▶ Run (%d)", r.Count)
		}
		out = append(out, CodeLens{Span: sp, Title: title, Command: CommandRun, Arguments: []any{s.URI, spanArg{sp}}})
	}
	return out
}

// timeoutMessage turns a deadline or the tuple budget into a message that
// says how to go past it from the editor.
func timeoutMessage(err error, limit time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("evaluation stopped after %v (raise the limit with the %s setting, in milliseconds)", limit, settingRunTimeout)
	}
	if le := (*lang.LimitError)(nil); errors.As(err, &le) {
		// The language server's budgets have no setting: the message
		// says how to go past them rather than a CLI flag alone, which
		// means nothing in an editor.
		return le.RaiseWith("an evaluation outside the editor (`ctxql eval datalog --max-tuples N`): the language server's budget has no setting")
	}
	return err
}

// Format formats the document with the canonical JQL printer.
func (jqlLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	return formatWith(s)
}

// Format formats the program with the canonical Datalog printer.
func (datalogLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	return formatWith(s)
}

// formatWith formats the document by its file name's language.
func formatWith(s *Snapshot) ([]syntax.TextEdit, error) {
	name := FilePath(s.URI)
	l := lang.ForName(name)
	if l == nil {
		return nil, lang.ErrUnsupported
	}
	out, err := l.Format(name, []byte(s.File.Text()), pact.DialectUnset)
	if err != nil {
		return nil, err
	}
	return minimalEdit(s.File.Text(), string(out)), nil
}

// withCount appends to a hover the result count of the query at off over
// the sample data, when the document has data.
func withCount(ctx context.Context, s *Snapshot, off int, md string, sp syntax.Span, ok bool) (string, syntax.Span, bool) {
	r, found := run(ctx, s, off)
	if !found {
		if hint, none := noDataHint(s); none && ok {
			md += "\n\n---\n\n" + hint
		}
		return md, sp, ok
	}
	line := fmt.Sprintf("Sample data: **%d** result(s) in %.1f ms", r.Count, float64(r.Elapsed.Microseconds())/1000)
	if r.Err != nil {
		line = fmt.Sprintf("Sample data: %v", r.Err)
	}
	if !ok {
		return line, r.Span, true
	}
	return md + "\n\n---\n\n" + line, sp, true
}

// noDataHint is the hover line of a document without sample data, saying
// how to name some; none is false when the document has data.
func noDataHint(s *Snapshot) (hint string, none bool) {
	if s.Workspace == nil || s.Workspace.DataPath(s) != "" {
		return "", false
	}
	return "*No sample data: add a `// data: ./sample.json` line (or a `data` setting) to see result counts.*", true
}

// withRuleDocs appends to a hover the documentation of the rules whose
// findings cover off.
func withRuleDocs(l *lint.Linter, diags []syntax.Diagnostic, off int, md string, sp syntax.Span, ok bool) (string, syntax.Span, bool) {
	if l == nil {
		return md, sp, ok
	}
	for _, d := range diags {
		if d.Code == "" || lint.IsParseError(d) || !(d.Span.Contains(off) || d.Span.End == off) {
			continue
		}
		a, found := l.Registry().Lookup(d.Code)
		if !found {
			continue
		}
		doc := fmt.Sprintf("**%s** %s: %s\n\n[rule documentation](%s)", a.Code, a.Name, a.Doc.Summary, lint.RuleURL(a.Code))
		if ok {
			md += "\n\n---\n\n" + doc
		} else {
			md, sp, ok = doc, d.Span, true
		}
	}
	return md, sp, ok
}
