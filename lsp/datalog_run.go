package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// InlayHints shows the tuple count of each rule's relation at its end.
func (l datalogLanguage) InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint {
	return countHints(ctx, s, l.Queries(s), span)
}

// Queries lists the spans of the program's rules.
func (datalogLanguage) Queries(s *Snapshot) []syntax.Span {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	var out []syntax.Span
	for _, r := range p.Rules() {
		out = append(out, r.Span)
	}
	return out
}

// datalogRun is the evaluation of a whole program over the sample data,
// through the language table.
type datalogRun struct {
	data    lang.Data
	rels    map[string][][]string // the derived relations
	cols    map[string][]Column   // their columns
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
	p := parsedOf(s)
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
	v, err := s.Workspace.evals.programs.get(ctx, &s.Workspace.evals, key, func(ctx context.Context) (datalogRun, bool) {
		data, err := s.Workspace.loadData(ctx, tableOf(s), path)
		if err != nil {
			return datalogRun{err: err}, true
		}
		t0 := time.Now()
		rctx, cancel := context.WithTimeout(ctx, s.runTimeout())
		defer cancel()
		results, err := tableOf(s).EvaluateFile(rctx, data, p, lang.Budget{})
		run := datalogRun{data: data, err: s.timeoutMessage(err), elapsed: time.Since(t0),
			rels: map[string][][]string{}, cols: map[string][]Column{}}
		for _, r := range results {
			if r.Invalid() {
				run.invalid = true
				continue
			}
			run.rels[r.Relation], _ = r.Value.([][]string)
			run.cols[r.Relation] = r.Columns
		}
		addFacts(run.rels, p.Rules())
		return run, true
	})
	if err != nil {
		return datalogRun{}, false
	}
	return v, true
}

// Run evaluates the program and returns the tuples of the relation the
// rule at off derives (its first head's).
func (l datalogLanguage) Run(ctx context.Context, s *Snapshot, off int) (RunResult, bool) {
	p := parsedOf(s)
	if p == nil {
		return RunResult{}, false
	}
	var rule *lang.Rule
	rules := p.Rules()
	for i, r := range rules {
		if r.Span.Touches(off) {
			rule = &rules[i]
		}
	}
	if rule == nil || len(rule.Heads) == 0 {
		return RunResult{}, false
	}
	// A rule's run shows the relation of its first head (runs are
	// cached per rule).
	head := rule.Heads[0]
	run, ok := l.evaluate(ctx, s)
	if !ok {
		return RunResult{}, false
	}
	res := RunResult{Span: rule.Span, Elapsed: run.elapsed}
	switch {
	case run.err != nil:
		res.Err = run.err
	case run.invalid:
		res.Err = errors.New("the program has errors")
	default:
		rows := run.rels[head.Relation]
		out := make([]any, len(rows))
		for i, r := range rows {
			out[i] = r
		}
		res.Count, res.Result, res.Sample = len(out), out, out[:min(len(out), previewLimit)]
		res.Relation, res.Columns = head.Relation, headColumns(head, run.cols[head.Relation])
	}
	return res, true
}

// headColumns names the columns of a relation after the head the run was
// asked from (the relation's types are the same for every rule deriving
// it): a variable argument names its column, any other is "_N".
func headColumns(head lang.Atom, cols []Column) []Column {
	out := slices.Clone(cols)
	for i := range out {
		out[i].Name = fmt.Sprintf("_%d", i+1)
		if i < len(head.Args) && slices.Contains(head.Vars, head.Args[i]) {
			out[i].Name = head.Args[i]
		}
	}
	return out
}

// addFacts adds to rels the relations that only facts of the program
// give (the table's results are the relations rules derive).
func addFacts(rels map[string][][]string, rules []lang.Rule) {
	seen := map[string]bool{}
	for _, r := range rules {
		if !r.Fact {
			continue
		}
		for _, h := range r.Heads {
			name := h.Relation
			if _, derived := rels[name]; derived && !seen[name] {
				continue
			}
			seen[name] = true
			t := slices.Clone(h.Args)
			if !slices.ContainsFunc(rels[name], func(u []string) bool { return slices.Equal(u, t) }) {
				rels[name] = append(rels[name], t)
			}
		}
	}
}

// CodeLenses puts "▶ Run" above each rule when the document has data.
func (l datalogLanguage) CodeLenses(ctx context.Context, s *Snapshot) []CodeLens {
	return runLenses(ctx, s, l.Queries(s))
}

// DataDiagnostics reports rules whose relation derives nothing over the
// sample data.
func (l datalogLanguage) DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := parsedOf(s)
	out := l.dataFindings(ctx, s)
	run, ok := l.evaluate(ctx, s)
	if !ok || p == nil || run.err != nil || run.invalid {
		return out
	}
	probes := 0
	for _, r := range p.Rules() {
		if r.Fact {
			continue
		}
		for _, h := range r.Heads {
			if len(run.rels[h.Relation]) > 0 {
				continue
			}
			d := syntax.Diagnostic{Span: h.NameSpan, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
				Message: fmt.Sprintf("%s derives nothing from the sample data %s", h.Relation, s.Workspace.DataPath(s))}
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

// dataFindings are the rule findings the sample data adds: those of the
// program checked against its data (lang.Parsed.WithData, the rules that
// read the data's values included) that the text alone does not give.
func (l datalogLanguage) dataFindings(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p, lt := parsedOf(s), linterFor(l.linter, s)
	if p == nil || lt == nil || s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	data, err := s.Workspace.loadData(ctx, tableOf(s), s.Workspace.DataPath(s))
	if err != nil {
		return nil
	}
	checked := p.WithData(data)
	if checked == p {
		return nil
	}
	type key struct {
		span       syntax.Span
		code, text string
	}
	seen := map[key]bool{}
	for _, d := range l.Diagnostics(ctx, s) {
		seen[key{d.Span, d.Code, d.Message}] = true
	}
	var out []syntax.Diagnostic
	for _, d := range lt.AnalyzeParsed(ctx, checked) {
		if d.Origin == syntax.OriginRule && !seen[key{d.Span, d.Code, d.Message}] {
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
// relation, or else the first item whose body prefix matches no tuple, as
// the language table's parts of the program say (lang.Language.Parts,
// evaluated once per program text and data version).
func firstFailing(ctx context.Context, s *Snapshot, run datalogRun, r lang.Rule) (syntax.RelatedInfo, bool) {
	for _, b := range r.Body {
		if a := b.Atom; a != nil && !a.Negated {
			if n, _ := run.relationCount(a.Relation); n == 0 {
				return syntax.RelatedInfo{Span: a.Span, Message: fmt.Sprintf("%s holds no tuple in the sample data", a.Relation)}, true
			}
		}
	}
	parts, ok := programParts(ctx, s, run)
	if !ok {
		return syntax.RelatedInfo{}, false
	}
	for _, b := range r.Body {
		for _, pt := range parts {
			if pt.Kind != "body item" || pt.Span != b.Span || !pt.Ran || pt.Rows > 0 {
				continue
			}
			what := "no tuple matches the rule's body up to here"
			if b.Atom != nil {
				what = fmt.Sprintf("no tuple of %s joins the body items before it", b.Atom.Relation)
			}
			return syntax.RelatedInfo{Span: b.Span, Message: what}, true
		}
	}
	return syntax.RelatedInfo{}, false
}

// programParts are the parts of the document's program run over its
// sample data (lang.Language.Parts), cached as evaluations are.
func programParts(ctx context.Context, s *Snapshot, run datalogRun) ([]lang.Part, bool) {
	p := parsedOf(s)
	if p == nil || run.data == nil {
		return nil, false
	}
	path := s.Workspace.DataPath(s)
	id, err := s.dataID(path)
	if err != nil {
		return nil, false
	}
	key := evalKey{kind: "datalog-parts", data: id.String(), path: path, text: s.File.Name() + "\x00" + s.File.Text()}
	parts, err := s.Workspace.evals.parts.get(ctx, &s.Workspace.evals, key, func(ctx context.Context) ([]lang.Part, bool) {
		ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
		defer cancel()
		parts, err := p.Lang.Parts(ctx, run.data, p, syntax.Sp(0, s.File.Len()), lang.Budget{})
		return parts, err == nil
	})
	return parts, err == nil && parts != nil
}
