package lang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// evpactOptions decodes PACT's range options.
func evpactOptions(raw []byte) (evpact.Options, error) { return evpact.ParseOptions(raw) }

// pactEval is PACT's Evaluator.
type pactEval struct{}

// pactData is loaded PACT snapshot data; eval/pact's Data is read-only
// after its load.
type pactData struct{ d *evpact.Data }

func (pactData) Language() ID                { return PACT }
func (pactData) Schema() map[string][]string { return nil }

func (pactEval) Load(ctx context.Context, r *files.Reader, path string) (Data, error) {
	d, err := evpact.LoadFileFromContext(ctx, r, path)
	if err != nil {
		return nil, loadError(err)
	}
	return pactData{d}, nil
}

func (pactEval) LoadBytes(ctx context.Context, _ string, b []byte) (Data, error) {
	d, err := evpact.LoadBytesContext(ctx, b)
	if err != nil {
		return nil, loadError(err)
	}
	return pactData{d}, nil
}

// compile parses q and compiles it; a refusal is returned as the result's
// diagnostics.
func (pactEval) compile(q Query) (*evpact.Plan, evpact.Options, *Result, error) {
	opts, err := evpact.ParseOptions(q.Options)
	if err != nil {
		return nil, opts, nil, &OptionsError{Err: err}
	}
	d := q.Dialect
	if d == DialectUnset {
		d = V2
	}
	file := syntax.NewFile(q.Name, q.Src)
	res := &Result{Lang: ByID(PACT), File: file, Key: strings.TrimSpace(q.Src), Span: syntax.Sp(0, len(q.Src))}
	pq, ds := pact.ParseQuery(q.Src, d)
	if syntax.HasErrors(ds) {
		res.Diagnostics = syntax.WithOrigin(ds, syntax.OriginSyntax)
		return nil, opts, res, nil
	}
	plan, err := evpact.Compile(pq, q.Src)
	if err != nil {
		res.Diagnostics = pactRefusal(err, pq.Sp)
		if res.Diagnostics == nil {
			return nil, opts, nil, err
		}
		return nil, opts, res, nil
	}
	return plan, opts, res, nil
}

// pactRefusal is the evaluator's refusal of a query as a diagnostic of
// origin check; nil when err is not one.
func pactRefusal(err error, span syntax.Span) []syntax.Diagnostic {
	var pe *evpact.Error
	if !errors.As(err, &pe) {
		return nil
	}
	if pe.Span != (syntax.Span{}) {
		span = pe.Span
	}
	return []syntax.Diagnostic{{Span: span, Severity: syntax.SeverityError, Origin: syntax.OriginCheck,
		Code: CodeInvalidPACT, Message: pe.Msg}}
}

func (e pactEval) Evaluate(ctx context.Context, d Data, q Query, _ Budget) (*Result, error) {
	plan, opts, res, err := e.compile(q)
	if err != nil || plan == nil {
		return res, err
	}
	opts.Nodes = q.Nodes
	r, err := plan.Eval(ctx, d.(pactData).d, opts)
	if err != nil {
		if res.Diagnostics = pactRefusal(err, res.Span); res.Diagnostics != nil {
			return res, nil
		}
		return nil, err
	}
	fillPACT(res, d.(pactData).d, r)
	return res, nil
}

// fillPACT sets the result of a PACT evaluation.
func fillPACT(res *Result, d *evpact.Data, r evpact.Result) {
	res.Value = r
	if r.Range != nil {
		res.Range, res.Count, res.Items = true, len(r.Range.Diffs), valueItems{r.Range}
		return
	}
	if r.Nodes != nil {
		res.Nodes, res.Count = &Nodes{Snapshot: r.Snapshot, Nodes: r.Nodes, snap: d.Snapshots[r.Snapshot]}, len(r.Nodes)
		return
	}
	res.Count = len(r.IDs)
	if len(r.IDs) > 0 {
		res.Items = stringItems(r.IDs)
	}
}

func (pactEval) EvaluateFile(ctx context.Context, d Data, p *Parsed, _ Budget) ([]Result, error) {
	pf, ok := p.AST.(*pact.File)
	if !ok {
		return nil, fmt.Errorf("%s: not a parsed PACT file", p.File.Name())
	}
	var out []Result
	for _, q := range pf.Queries {
		text := pf.Src.Slice(q.Sp)
		r := Result{Lang: p.Lang, File: p.File, Span: q.Sp, Key: strings.TrimSpace(text)}
		if q.Bad {
			r.Err = errors.New("the query has syntax errors")
			out = append(out, r)
			continue
		}
		plan, err := evpact.Compile(q, text)
		if err == nil {
			var v evpact.Result
			if v, err = plan.Eval(ctx, d.(pactData).d, evpact.Options{}); err == nil {
				fillPACT(&r, d.(pactData).d, v)
			}
		}
		if err != nil {
			r.Err = err
			r.Diagnostics = pactRefusal(err, q.Sp)
		}
		out = append(out, r)
	}
	return out, nil
}

func (e pactEval) Explain(ctx context.Context, d Data, q Query, xo Explain) (*Explanation, error) {
	plan, _, res, err := e.compile(q)
	if err != nil {
		return nil, err
	}
	x := &Explanation{File: res.File, Emptied: -1, Profiled: xo.Profile}
	if plan == nil {
		x.Diagnostics = res.Diagnostics
		return x, nil
	}
	ex, err := plan.Explain(ctx, d.(pactData).d)
	if err != nil {
		if x.Diagnostics = pactRefusal(err, res.Span); x.Diagnostics != nil {
			return x, nil
		}
		return nil, err
	}
	for _, st := range ex.Steps {
		x.Steps = append(x.Steps, Step{At: st.Span.Start, End: st.Span.End, Text: st.Text, Count: st.Count, Time: st.Time})
	}
	x.Emptied = ex.Emptied
	if st, ok := ex.EmptiedBy(); ok {
		x.Summary = fmt.Sprintf("no match: %s at %s left no candidates", st.Text, res.File.Position(st.Span.Start))
	} else {
		x.Summary = fmt.Sprintf("%d match(es)", len(ex.IDs))
	}
	return x, nil
}

// Nodes are the nodes a PACT selection of one snapshot chose, in the
// order of its ids: the snapshot's index in the data and each node's
// index in the snapshot (document order). ID gives their ids.
type Nodes struct {
	Snapshot int
	Nodes    []int32
	snap     *evpact.Snapshot
}

// ID returns the id of node n of the snapshot ("" when it has none or is
// not in it).
func (ns *Nodes) ID(n int32) string {
	if n < 0 || int(n) >= ns.snap.Len() {
		return ""
	}
	return ns.snap.Node(int(n)).ID()
}

// NodeSummary describes one node a PACT query selected, for a results
// table: its id, node type, depth in its tree (the root is 0), role and
// kind attributes when it has them, and the start of its content.
type NodeSummary struct {
	ID       string `json:"id"`
	NodeType string `json:"nodeType"`
	Depth    int    `json:"depth"`
	Role     string `json:"role,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Preview  string `json:"preview,omitempty"`
}

// DescribeNodes summarises the nodes of ids in PACT data, looked up from
// the newest snapshot back (ids not found are left out); each preview is
// cut to preview characters. Other data has no nodes (nil).
func DescribeNodes(d Data, ids []string, preview int) []NodeSummary {
	pd, ok := d.(pactData)
	if !ok || len(ids) == 0 {
		return nil
	}
	out := make([]NodeSummary, 0, len(ids))
	for _, id := range ids {
		var n evpact.Node
		for i := len(pd.d.Snapshots) - 1; i >= 0 && !n.Valid(); i-- {
			n = pd.d.Snapshots[i].Lookup(id)
		}
		if !n.Valid() {
			continue
		}
		sum := NodeSummary{ID: n.ID(), NodeType: n.NodeType(), Depth: n.Depth()}
		if v, ok := n.Attr("role"); ok {
			sum.Role = fmt.Sprint(v)
		}
		if v, ok := n.Attr("kind"); ok {
			sum.Kind = fmt.Sprint(v)
		}
		for _, k := range []string{"content", "text", "summary", "value"} {
			if v, ok := n.Attr(k); ok && v != nil {
				sum.Preview = clip(oneLine(v), preview)
				break
			}
		}
		out = append(out, sum)
	}
	return out
}

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
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Parts lists the steps and filters of each query, as Explain counts
// them.
func (pactEval) Parts(ctx context.Context, d Data, p *Parsed, within syntax.Span, _ Budget) ([]Part, error) {
	pf, ok := p.AST.(*pact.File)
	if !ok {
		return nil, fmt.Errorf("%s: not a parsed PACT file", p.File.Name())
	}
	src := p.File.Text()
	var out []Part
	for _, q := range pf.Queries {
		if q.Bad {
			continue
		}
		plan, err := evpact.Compile(q, src)
		if err != nil {
			continue
		}
		ex, err := plan.Explain(ctx, d.(pactData).d)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		ran := overlaps(q.Sp, within)
		for _, st := range ex.Steps {
			kind := "step"
			if strings.HasPrefix(st.Text, "[") || strings.HasPrefix(st.Text, "{") || strings.HasPrefix(st.Text, "@") || strings.HasPrefix(st.Text, ":") {
				kind = "filter"
			}
			pt := Part{Span: st.Span, Kind: kind, Text: oneLineText(st.Text), Ran: ran}
			if ran {
				pt.Rows, pt.Time = st.Count, st.Time
			}
			out = append(out, pt)
		}
	}
	return out, nil
}
