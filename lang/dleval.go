package lang

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	evdl "github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// datalogEval is Datalog's Evaluator.
type datalogEval struct{}

// datalogData is loaded Datalog data. An evaluation interns the
// constants of its rules into the database it runs on, so each running
// evaluation takes a database of its own from a pool, loaded from the
// source that nothing modifies (the JSON text or the facts files' text):
// evaluations share the data without waiting for each other.
type datalogData struct {
	load   func(context.Context) (*evdl.DB, error) // loads a database from the source
	schema map[string][]string
	sizes  map[string]int
	// numeric says, per relation, which columns hold only decimal
	// numbers (the numeric-text-comparison rule reads it).
	numeric map[string][]bool
	pool    *sync.Pool // of *evdl.DB, loaded by load
}

func (d *datalogData) Language() ID                { return Datalog }
func (d *datalogData) Schema() map[string][]string { return d.schema }

// take returns a database for one evaluation, loading one under ctx when
// the pool has none; put gives it back.
func (d *datalogData) take(ctx context.Context) (*evdl.DB, error) {
	if db, ok := d.pool.Get().(*evdl.DB); ok {
		return db, nil
	}
	db, err := d.load(ctx)
	if err != nil {
		return nil, loadError(err)
	}
	return db, nil
}

func (d *datalogData) put(db *evdl.DB) { d.pool.Put(db) }

// Load reads a JSON data file, loaded by the scanning loader, or a facts
// directory.
func (datalogEval) Load(ctx context.Context, r *files.Reader, path string) (Data, error) {
	st, err := r.Stat(path)
	if err != nil {
		return nil, &DataError{Err: fmt.Errorf("read data: %w", err)}
	}
	if st.IsDir() {
		facts, err := evdl.ReadFacts(ctx, r, path)
		if err != nil {
			return nil, loadError(err)
		}
		return newDatalogData(ctx, facts.Load)
	}
	b, err := r.ReadFile(path)
	if err != nil {
		return nil, &DataError{Err: fmt.Errorf("read data: %w", err)}
	}
	return newDatalogJSON(ctx, b)
}

// LoadOnce loads a JSON data file, or the files of a facts directory,
// from a mapping of them (files.Mapped), released once the database is
// loaded: the text is neither copied into the heap nor kept. A later
// evaluation that needs a database of its own reads the files again.
func (datalogEval) LoadOnce(ctx context.Context, r *files.Reader, path string) (Data, error) {
	if _, err := r.Stat(path); err != nil {
		return nil, &DataError{Err: fmt.Errorf("read data: %w", err)}
	}
	return newDatalogData(ctx, func(ctx context.Context) (*evdl.DB, error) { return evdl.LoadPathFromContext(ctx, r, path) })
}

func (datalogEval) LoadBytes(ctx context.Context, _ string, b []byte) (Data, error) {
	return newDatalogJSON(ctx, bytes.Clone(b))
}

// newDatalogJSON loads data from its JSON text, which it keeps for the
// databases of later evaluations: nothing may modify src.
func newDatalogJSON(ctx context.Context, src []byte) (Data, error) {
	return newDatalogData(ctx, func(ctx context.Context) (*evdl.DB, error) { return evdl.LoadJSONContext(ctx, src) })
}

// newDatalogData loads the first database, which also gives the schema
// and the relation sizes.
func newDatalogData(ctx context.Context, load func(context.Context) (*evdl.DB, error)) (Data, error) {
	d := &datalogData{load: load, sizes: map[string]int{}, pool: &sync.Pool{}}
	db, err := d.take(ctx)
	if err != nil {
		return nil, err
	}
	d.schema, d.numeric = db.Schema(), db.NumericColumns()
	for _, r := range db.Relations() {
		d.sizes[r.Name] = r.Size
	}
	d.put(db)
	return d, nil
}

// RelationSizes returns the number of tuples of each relation of Datalog
// data; nil for other data.
func RelationSizes(d Data) map[string]int {
	if dd, ok := d.(*datalogData); ok {
		return dd.sizes
	}
	return nil
}

// dlOptions maps a budget to the evaluator's options. The default
// budget (0 or DefaultMaxTuples, the value of the flags' defaults) is the
// evaluator's default: DefaultMaxTuples derived tuples, and intermediate
// join results bounded by memory rather than by their count. The rounds
// of a recursive evaluation split their new tuples across GOMAXPROCS
// workers, as JQL's scans do; the result is the same for any number.
func dlOptions(b Budget) evdl.Options {
	o := evdl.Options{Workers: runtime.GOMAXPROCS(0)}
	if b.MaxTuples != DefaultMaxTuples {
		o.MaxTuples = b.MaxTuples
	}
	return o
}

// datalogError maps the budget error to a *LimitError.
func datalogError(err error) error {
	var le *evdl.LimitError
	if errors.As(err, &le) && le.Bytes > 0 {
		return &LimitError{What: "an intermediate join result", Limit: fmt.Sprint(le.Bytes >> 20), Unit: "MiB", Err: err}
	}
	if errors.As(err, &le) {
		return &LimitError{What: budget.Tuples, Limit: fmt.Sprint(le.Max), Err: err}
	}
	return err
}

func (datalogEval) Evaluate(ctx context.Context, d Data, q Query, b Budget) (*Result, error) {
	dd := d.(*datalogData)
	db, err := dd.take(ctx)
	if err != nil {
		return nil, err
	}
	if !q.Stream {
		// A streamed result's rows read the database's strings when they
		// are written, later: that database is not given back to the pool.
		defer dd.put(db)
	}
	res := &Result{Lang: ByID(Datalog), File: syntax.NewFile(q.Name, q.Src), Span: syntax.Sp(0, len(q.Src))}
	if q.Program {
		r, rels, err := evdl.EvalProgramRows(ctx, db, q.Name, q.Src, dlOptions(b))
		if err != nil {
			return nil, datalogError(err)
		}
		res.File = r.Program.File
		res.Diagnostics = withOrigins(r.Diagnostics, datalog.CodeSyntax)
		if rels != nil && len(q.Relations) > 0 {
			picked := map[string]*evdl.Rows{}
			for _, n := range q.Relations {
				switch v := rels[n]; {
				case v != nil:
					picked[n] = v
				case db.Rows(n) != nil:
					picked[n] = db.Rows(n)
				case r.Info != nil && r.Info.Relations[n] != nil:
					picked[n] = evdl.EmptyRows(db, len(r.Info.Relations[n].Types))
				default:
					return nil, fmt.Errorf("no relation %s in the program or the data", n)
				}
			}
			rels = picked
		}
		for _, v := range rels {
			res.Count += v.Len()
		}
		if q.Stream {
			res.Write = func(w io.Writer) error { return evdl.WriteRelationsJSON(w, rels) }
			return res, nil
		}
		m := map[string][][]string{}
		for k, v := range rels {
			tuples, err := v.TuplesContext(ctx)
			if err != nil {
				return nil, err
			}
			m[k] = nonNilTuples(tuples)
		}
		res.Value = m
		return res, nil
	}
	r, rows, err := evdl.EvalRuleRows(ctx, db, q.Src, dlOptions(b))
	if err != nil {
		return nil, datalogError(err)
	}
	res.Diagnostics = withOrigins(r.Diagnostics, datalog.CodeSyntax)
	if r.Rule != nil && r.Rule.Head != nil {
		res.Key, res.Relation = r.Rule.Head.Name.Name, r.Rule.Head.Name.Name
		res.Columns = columnsOf(r.Rule, r.Info)
	}
	if rows == nil {
		fillTuples(res, nil)
		return res, nil
	}
	if q.Stream {
		res.Count = rows.Len()
		res.Write = func(w io.Writer) error { return rows.WriteJSONContext(ctx, w) }
		return res, nil
	}
	tuples, err := rows.TuplesContext(ctx)
	if err != nil {
		return nil, err
	}
	fillTuples(res, tuples)
	return res, nil
}

func fillTuples(res *Result, tuples [][]string) {
	t := nonNilTuples(tuples)
	res.Value, res.Count = t, len(t)
	if len(t) > 0 {
		res.Items = tupleItems(t)
	}
}

func nonNilTuples(t [][]string) [][]string {
	if t == nil {
		return [][]string{}
	}
	return t
}

// EvaluateFile evaluates the program once; its results are the relations
// its rules derive, in the order of their first rule. A program with
// errors gives one result holding them.
func (datalogEval) EvaluateFile(ctx context.Context, d Data, p *Parsed, b Budget) ([]Result, error) {
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return nil, fmt.Errorf("%s: not a parsed Datalog program", p.File.Name())
	}
	dd := d.(*datalogData)
	info := datalog.Check(prog, dd.schema)
	ds := withOrigins(append(slices.Clone(prog.Diagnostics), info.Diagnostics...), datalog.CodeSyntax)
	syntax.SortDiagnostics(ds)
	if syntax.HasErrors(ds) {
		return []Result{{Lang: p.Lang, File: p.File, Span: syntax.Sp(0, p.File.Len()), Diagnostics: ds}}, nil
	}
	db, err := dd.take(ctx)
	if err != nil {
		return nil, err
	}
	defer dd.put(db)
	rels, err := evdl.RunProgramWith(ctx, db, prog, info, dlOptions(b))
	if err != nil {
		return nil, datalogError(err)
	}
	return relationResults(p, prog, info, rels), nil
}

// relationResults is a result per relation the program's rules derive,
// in the order of their first rules, each with its tuples.
func relationResults(p *Parsed, prog *datalog.Program, info *datalog.Info, rels map[string][][]string) []Result {
	var out []Result
	seen := map[string]bool{}
	for _, r := range prog.Rules {
		if r.Head == nil || r.IsFact() || seen[r.Head.Name.Name] {
			continue
		}
		name := r.Head.Name.Name
		seen[name] = true
		res := Result{Lang: p.Lang, File: p.File, Span: r.Sp, Key: name, Relation: name, Columns: columnsOf(r, info)}
		fillTuples(&res, rels[name])
		out = append(out, res)
	}
	return out
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

// ErrTupleSyntax reports a tuple to explain that is not written as
// rel("a", "b").
var ErrTupleSyntax = errors.New("invalid tuple")

// Explain answers Why (the proof of a derived tuple) and WhyNot (for each
// rule of the tuple's relation, the first body item nothing satisfies).
// The program is q.Src (a whole program, or one rule).
func (e datalogEval) Explain(ctx context.Context, d Data, q Query, x Explain) (*Explanation, error) {
	if x.Profile && x.Why == "" && x.WhyNot == "" {
		return e.profile(ctx, d, q, x)
	}
	tuple := x.Why
	if tuple == "" {
		tuple = x.WhyNot
	}
	rel, vals, err := evdl.ParseTuple(tuple)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTupleSyntax, err)
	}
	dd := d.(*datalogData)
	prog := datalog.ParseProgram(q.Name, q.Src)
	info := datalog.Check(prog, dd.schema)
	ds := append(slices.Clone(prog.Diagnostics), info.Diagnostics...)
	syntax.SortDiagnostics(ds)
	out := &Explanation{File: prog.File, Emptied: -1, Diagnostics: withOrigins(ds, datalog.CodeSyntax)}
	if out.Invalid() {
		return out, nil
	}
	db, err := dd.take(ctx)
	if err != nil {
		return nil, err
	}
	defer dd.put(db)
	ex, err := evdl.NewExplainer(ctx, db, prog, info, evdl.ExplainOptions{Options: dlOptions(x.Budget), MaxDepth: x.Depth})
	if err != nil {
		return nil, datalogError(err)
	}
	var b bytes.Buffer
	if x.Why != "" {
		p, err := ex.Why(ctx, rel, vals)
		if errors.Is(err, evdl.ErrNotDerived) {
			out.NotDerived, out.Summary = true, err.Error()
			return out, nil
		}
		if err != nil {
			return nil, datalogError(err)
		}
		if err := p.Format(&b, prog.File); err != nil {
			return nil, err
		}
	} else {
		w, err := ex.WhyNot(ctx, rel, vals)
		if err != nil {
			return nil, datalogError(err)
		}
		if err := w.Format(&b, prog.File); err != nil {
			return nil, err
		}
		out.Holds = w.Holds
	}
	out.Text = b.String()
	return out, nil
}

// coveragePrefix names the probe relations Parts adds to a program.
const coveragePrefix = "ctxql__probe_"

// Parts lists each rule and body item of the program. It evaluates the
// program once with a probe rule per body item, "probe() <-- item1, ...,
// itemK;", whose zero-arity head holds exactly when the body up to that
// item matches: a body item's Rows is 1 then, and a rule's Rows is its
// last item's. A program whose prefixes are not valid rules on their own
// (a condition before the atom that binds its variable) is probed by
// whole bodies only, each item taking its rule's answer.
func (datalogEval) Parts(ctx context.Context, d Data, p *Parsed, within syntax.Span, b Budget) ([]Part, error) {
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return nil, fmt.Errorf("%s: not a parsed Datalog program", p.File.Name())
	}
	dd := d.(*datalogData)
	if syntax.HasErrors(prog.Diagnostics) || syntax.HasErrors(datalog.Check(prog, dd.schema).Diagnostics) {
		return nil, nil
	}
	src := p.File.Text()
	ran := overlaps(syntax.Sp(0, len(src)), within)
	type probe struct {
		part int    // index into out
		rel  string // the probe relation
		rule int    // the program rule
	}
	var (
		out           []Part
		byItem, whole []probe
		prefixes      strings.Builder
		bodies        strings.Builder
	)
	for i, r := range prog.Rules {
		if r.IsFact() || len(r.Body) == 0 {
			continue
		}
		ruleAt := len(out)
		out = append(out, Part{Span: r.Sp, Kind: "rule", Text: oneLineText(src[r.Sp.Start:r.Sp.End])})
		var items []string
		for k, it := range r.Body {
			sp := it.Span()
			items = append(items, src[sp.Start:sp.End])
			out = append(out, Part{Span: sp, Kind: "body item", Text: oneLineText(src[sp.Start:sp.End])})
			rel := fmt.Sprintf("%s%d_%d", coveragePrefix, i, k)
			fmt.Fprintf(&prefixes, "\n%s() <-- %s;", rel, strings.Join(items, ", "))
			byItem = append(byItem, probe{len(out) - 1, rel, i})
		}
		rel := fmt.Sprintf("%s%d", coveragePrefix, i)
		fmt.Fprintf(&bodies, "\n%s() <-- %s;", rel, strings.Join(items, ", "))
		whole = append(whole, probe{ruleAt, rel, i})
	}
	if !ran || len(out) == 0 {
		return out, nil
	}
	db, err := dd.take(ctx)
	if err != nil {
		return nil, err
	}
	defer dd.put(db)
	var prof *evdl.Profile
	run := func(extra string) (map[string][][]string, bool, error) {
		opts := dlOptions(b)
		opts.Profile = &evdl.Profile{}
		r, err := evdl.EvalProgramWith(ctx, db, p.File.Name(), src+extra, opts)
		if err != nil {
			return nil, false, datalogError(err)
		}
		prof = opts.Profile
		return r.Relations, !syntax.HasErrors(r.Diagnostics), nil
	}
	rels, ok, err := run(prefixes.String() + bodies.String())
	if err != nil {
		return nil, err
	}
	if !ok {
		if rels, ok, err = run(bodies.String()); err != nil || !ok {
			return nil, err
		}
		// Each item takes its rule's answer.
		byItem = byItem[:0]
		for _, w := range whole {
			for k := w.part + 1; k < len(out) && out[k].Kind == "body item"; k++ {
				byItem = append(byItem, probe{k, w.rel, w.rule})
			}
		}
	}
	for _, pr := range append(byItem, whole...) {
		out[pr.part].Ran = true
		if len(rels[pr.rel]) > 0 {
			out[pr.part].Rows = 1
		}
	}
	// A rule's time and the tuples it derived, from the profile (the
	// program's own rules come first; the probes follow them).
	for _, w := range whole {
		if rp := prof.Rules[w.rule]; rp.Runs > 0 {
			out[w.part].Time = rp.Time
			out[w.part].Rows = max(out[w.part].Rows, rp.Derived)
		}
	}
	return out, nil
}

// DefaultExplainDepth is the depth of a Datalog proof tree when Explain
// leaves it unset.
const DefaultExplainDepth = evdl.DefaultExplainDepth

// ParseTuple reads a tuple to explain, written as rel("a", "b") (numbers
// may go unquoted): its relation and its values.
func ParseTuple(tuple string) (rel string, vals []string, err error) {
	return evdl.ParseTuple(tuple)
}

// FormatTuple writes a Datalog tuple as an atom, rel("a", "b"), as proofs
// and the commands that explain a tuple take it: the one printing of a
// tuple, which ParseTuple reads back.
func FormatTuple(rel string, vals []string) string { return evdl.FormatTuple(rel, vals) }

// CheckTuple reports whether a tuple to explain is written as
// rel("a", "b").
func CheckTuple(tuple string) error {
	if _, _, err := evdl.ParseTuple(tuple); err != nil {
		return err
	}
	return nil
}

// profile evaluates the program (or the rule) with a profile: a step per
// rule, with the tuples it derived and the time it took, in source order.
func (datalogEval) profile(ctx context.Context, d Data, q Query, x Explain) (*Explanation, error) {
	dd := d.(*datalogData)
	prog := datalog.ParseProgram(q.Name, q.Src)
	info := datalog.Check(prog, dd.schema)
	ds := append(slices.Clone(prog.Diagnostics), info.Diagnostics...)
	syntax.SortDiagnostics(ds)
	out := &Explanation{File: prog.File, Emptied: -1, Profiled: true, Diagnostics: withOrigins(ds, datalog.CodeSyntax)}
	if out.Invalid() {
		return out, nil
	}
	db, err := dd.take(ctx)
	if err != nil {
		return nil, err
	}
	defer dd.put(db)
	opts := dlOptions(x.Budget)
	opts.Profile = &evdl.Profile{}
	if _, err := evdl.RunProgramWith(ctx, db, prog, info, opts); err != nil {
		return nil, datalogError(err)
	}
	total := 0
	src := prog.File.Text()
	for i, r := range prog.Rules {
		if r.IsFact() || len(r.Body) == 0 {
			continue
		}
		rp := opts.Profile.Rules[i]
		head := oneLineText(src[r.Sp.Start:r.Sp.End])
		if cut := strings.Index(head, " <--"); cut > 0 {
			head = head[:cut]
		}
		out.Steps = append(out.Steps, Step{At: r.Sp.Start, End: r.Sp.End, Text: head, Count: rp.Derived, Time: rp.Time})
		total += rp.Derived
	}
	out.Summary = fmt.Sprintf("%d tuple(s) derived by %d rule(s)", total, len(out.Steps))
	return out, nil
}
