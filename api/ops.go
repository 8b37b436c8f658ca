package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/report"
	"github.com/ctxql/ctxql/syntax"
)

// CheckParams are the parameters of check.
type CheckParams struct {
	Text     string `json:"text"`
	Language string `json:"language"`
	Dialect  string `json:"dialect,omitempty"`
	Path     string `json:"path,omitempty"`
	// Data is the text's sample data: what its data pragma names, or the
	// data of a text without one. A Datalog program is checked against
	// its schema, as `ctxql check` does with the data the pragma names.
	Data *string `json:"data,omitempty"`
}

// withData returns l checking texts against the sample data data (nil:
// none, as a text whose pragma names nothing readable).
func withData(ctx context.Context, l *lint.Linter, data *string) *lint.Linter {
	if data == nil {
		return l
	}
	const name = "data.json"
	var (
		once sync.Once
		d    lang.Data
		err  error
	)
	return l.WithEditorData(func(string) (string, bool) { return name, true }).
		WithData(func(lg *lang.Language, _ string) (lang.Data, error) {
			once.Do(func() { d, err = lg.LoadBytes(ctx, name, []byte(*data)) })
			return d, err
		})
}

// DataPathParams are the parameters of dataPath.
type DataPathParams struct {
	Text string `json:"text"`
	Path string `json:"path"`
}

// DataPath is the sample data a text's data pragma names, resolved
// against the directory of its path as `ctxql check` resolves it; nil
// when it names none.
func (s *Session) DataPath(p DataPathParams) (*string, error) {
	if _, _, aerr := textName("", p.Path); aerr != nil {
		return nil, aerr
	}
	path, ok := lang.Settings{}.DataPathText(p.Path, p.Text)
	if !ok {
		return nil, nil
	}
	return &path, nil
}

// textName is the name of a text of language id: path, whose suffix must
// be the language's, else "stdin" and the language's first suffix.
func textName(id, p string) (*lang.Language, string, *Error) {
	if id == "" && p != "" {
		if l := lang.ForName(p); l != nil {
			id = string(l.ID)
		}
	}
	l, err := language(id, false)
	if err != nil {
		return nil, "", err
	}
	if p == "" {
		return l, "stdin" + l.Extensions()[0], nil
	}
	if lang.ForName(p) != l {
		return nil, "", usagef("path %q is not a %s file name (want a suffix of %s)", p, l.Name, strings.Join(l.Extensions(), ", "))
	}
	return l, p, nil
}

// Check lints a text as `ctxql check --format json` does (with no
// configuration file): every diagnostic, each as that report prints it.
func (s *Session) Check(ctx context.Context, p CheckParams) ([]report.JSONFinding, error) {
	_, name, aerr := textName(p.Language, p.Path)
	if aerr != nil {
		return nil, aerr
	}
	d, aerr := dialect(p.Dialect)
	if aerr != nil {
		return nil, aerr
	}
	l, err := lint.New(d)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	file, diags, err := withData(ctx, l, p.Data).Check(ctx, name, p.Text)
	if err != nil {
		return nil, evalError(err, "")
	}
	fs := make([]report.Finding, 0, len(diags))
	for _, d := range diags {
		fs = append(fs, report.Finding{Path: name, File: file, Diag: d, Fixable: lint.Fixable(d, false)})
	}
	return report.JSON(fs), nil
}

// FormatParams are the parameters of format.
type FormatParams struct {
	Text     string `json:"text"`
	Language string `json:"language"`
	Dialect  string `json:"dialect,omitempty"`
	Path     string `json:"path,omitempty"`
}

// Format prints a text canonically, as `ctxql fmt` does; a text with
// syntax errors fails with the first one.
func (s *Session) Format(p FormatParams) (string, error) {
	l, name, aerr := textName(p.Language, p.Path)
	if aerr != nil {
		return "", aerr
	}
	if !l.CanFormat() {
		return "", usagef("%s has no formatter", l.Name)
	}
	d, aerr := dialect(p.Dialect)
	if aerr != nil {
		return "", aerr
	}
	out, err := l.Format(name, []byte(p.Text), d)
	var se *lang.SyntaxError
	if errors.As(err, &se) {
		return "", diagError(syntax.NewFile(name, p.Text), se.Diagnostics)
	}
	if err != nil {
		return "", &Error{Code: CodeInternal, Message: err.Error()}
	}
	return string(out), nil
}

// MigrateParams are the parameters of migrate.
type MigrateParams struct {
	Text    string `json:"text"`
	To      string `json:"to,omitempty"`
	Dialect string `json:"dialect,omitempty"`
	Unsafe  bool   `json:"unsafe,omitempty"`
	Path    string `json:"path,omitempty"`
}

// Migration is the result of migrate.
type Migration struct {
	// Text is what `ctxql migrate` prints.
	Text    string `json:"text"`
	Changed bool   `json:"changed"`
	// Manual are the places left for a manual decision, which
	// `ctxql migrate` lists on standard error.
	Manual []Manual `json:"manual"`
}

// Manual is a place a migration left for a manual decision.
type Manual struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	Range   *Range `json:"range"`
}

// Migrate rewrites a PACT text's legacy forms and, with To "v2", its v1
// selectors, as `ctxql migrate [--to v2]` does.
func (s *Session) Migrate(p MigrateParams) (*Migration, error) {
	l, name, aerr := textName(migrating(), p.Path)
	if aerr != nil {
		return nil, aerr
	}
	opts := lang.MigrateOptions{Unsafe: p.Unsafe}
	switch to, _ := lang.ParseDialect(p.To); {
	case p.To == "":
	case to == lang.V2:
		opts.To = to
	default:
		return nil, usagef("to must be v2, not %q", p.To)
	}
	d, aerr := dialect(p.Dialect)
	if aerr != nil {
		return nil, aerr
	}
	opts.From = lang.Settings{Editor: d}.Dialect(name, lang.DialectUnset)
	res, err := l.Migrate(name, []byte(p.Text), opts)
	var pe *lang.ParseError
	if errors.As(err, &pe) {
		return nil, diagError(pe.File, pe.Diagnostics)
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	file := syntax.NewFile(name, p.Text)
	m := &Migration{Text: string(res.Output), Changed: res.Changed, Manual: []Manual{}}
	for _, d := range res.Manual {
		m.Manual = append(m.Manual, Manual{Code: d.Code, Message: d.Message, Range: rangeOf(file, d.Span)})
	}
	return m, nil
}

// migrating is the language that migrates (PACT).
func migrating() string {
	for _, l := range lang.All() {
		if l.CanMigrate() {
			return string(l.ID)
		}
	}
	return ""
}

// LoadParams are the parameters of load.
type LoadParams struct {
	Language string `json:"language"`
	// Data is the data as text; DataBase64 the data's bytes in base64.
	Data       *string `json:"data,omitempty"`
	DataBase64 *string `json:"dataBase64,omitempty"`
	// Name tells the data's format by its suffix (default "data.json").
	Name string `json:"name,omitempty"`
	// Bytes is the data given as bytes rather than in Data or DataBase64
	// (CallData).
	Bytes []byte `json:"-"`
}

// Loaded is the result of load.
type Loaded struct {
	Handle int `json:"handle"`
}

// Load decodes a data set and keeps it under a new handle until Release.
func (s *Session) Load(ctx context.Context, p LoadParams) (*Loaded, error) {
	l, d, err := load(ctx, p)
	if err != nil {
		return nil, err
	}
	return &Loaded{Handle: s.add(l, d)}, nil
}

func load(ctx context.Context, p LoadParams) (*lang.Language, lang.Data, error) {
	l, aerr := language(p.Language, true)
	if aerr != nil {
		return nil, nil, aerr
	}
	var b []byte
	switch {
	case p.Data != nil && p.DataBase64 != nil, p.Bytes != nil && (p.Data != nil || p.DataBase64 != nil):
		return nil, nil, usagef("give the data once: data, dataBase64 or the bytes beside the parameters")
	case p.Bytes != nil:
		b = p.Bytes
	case p.Data != nil:
		b = []byte(*p.Data)
	case p.DataBase64 != nil:
		var err error
		if b, err = base64.StdEncoding.DecodeString(*p.DataBase64); err != nil {
			return nil, nil, usagef("dataBase64: %v", err)
		}
	default:
		return nil, nil, usagef("data (or dataBase64) is required")
	}
	name := p.Name
	if name == "" {
		name = "data.json"
	}
	d, err := l.LoadBytes(ctx, path.Base(name), b)
	if err != nil {
		return nil, nil, evalError(err, "")
	}
	return l, d, nil
}

// EvalOptions are the parameters of an evaluation besides the handle and
// the query.
type EvalOptions struct {
	Dialect      string          `json:"dialect,omitempty"`
	Program      bool            `json:"program,omitempty"`
	Explain      bool            `json:"explain,omitempty"`
	RangeOptions json.RawMessage `json:"rangeOptions,omitempty"`
	MaxTuples    int             `json:"maxTuples,omitempty"`
	MaxBytes     int64           `json:"maxBytes,omitempty"`
	// Printed asks for the result as the text `ctxql eval` prints (a
	// string) rather than as the JSON value.
	Printed bool `json:"printed,omitempty"`
	// nodes, when not nil, asks a PACT selection of one snapshot for its
	// nodes, in *nodes's storage (EvaluateNodes).
	nodes *[]int32
}

// EvaluateParams are the parameters of evaluate.
type EvaluateParams struct {
	Handle int    `json:"handle"`
	Query  string `json:"query"`
	EvalOptions
}

// Evaluate runs a query on a loaded data set. The result is the JSON value
// `ctxql eval LANGUAGE` prints, or with Explain an *Explanation.
func (s *Session) Evaluate(ctx context.Context, p EvaluateParams) (any, error) {
	d, aerr := s.get(p.Handle)
	if aerr != nil {
		return nil, aerr
	}
	return evaluate(ctx, d, p.Query, p.EvalOptions)
}

// EvaluateOnceParams are the parameters of evaluateOnce.
type EvaluateOnceParams struct {
	Language   string      `json:"language"`
	Query      string      `json:"query"`
	Data       *string     `json:"data,omitempty"`
	DataBase64 *string     `json:"dataBase64,omitempty"`
	Name       string      `json:"name,omitempty"`
	Options    EvalOptions `json:"options"`
	// Bytes is the data given as bytes (CallData).
	Bytes []byte `json:"-"`
}

// EvaluateOnce loads data for one evaluation. A query evaluated on its
// own (not a whole program) is checked first: an invalid query fails
// before the data is read, as on the command line.
func (s *Session) EvaluateOnce(ctx context.Context, p EvaluateOnceParams) (any, error) {
	l, aerr := language(p.Language, true)
	if aerr != nil {
		return nil, aerr
	}
	if !l.Program() {
		d, aerr := dialect(p.Options.Dialect)
		if aerr != nil {
			return nil, aerr
		}
		if ds := l.CheckQuery(queryName, p.Query, d); syntax.HasErrors(ds) {
			return nil, diagError(syntax.NewFile(queryName, p.Query), ds)
		}
	}
	l, data, err := load(ctx, LoadParams{Language: p.Language, Data: p.Data, DataBase64: p.DataBase64, Name: p.Name, Bytes: p.Bytes})
	if err != nil {
		return nil, err
	}
	return evaluate(ctx, loaded{l, data}, p.Query, p.Options)
}

// queryName names a query given as text in positions.
const queryName = "query"

// raiseWith names the option that raises the limit an evaluation reached.
func raiseWith(err error) string {
	var le *lang.LimitError
	if !errors.As(err, &le) {
		return ""
	}
	switch le.What {
	case budget.Tuples:
		return "the maxTuples option"
	case budget.Time:
		return ""
	}
	return "the maxBytes option"
}

// evaluate runs q on d as `ctxql eval` does.
func evaluate(ctx context.Context, d loaded, src string, o EvalOptions) (any, error) {
	l := d.lang
	dl, aerr := dialect(o.Dialect)
	if aerr != nil {
		return nil, aerr
	}
	if err := l.CheckOptions(o.RangeOptions); err != nil {
		return nil, usagef("rangeOptions: %v", err)
	}
	switch {
	case o.Program && !l.Program():
		return nil, usagef("%s has no programs: program is Datalog's option", l.Name)
	case o.Explain && l.Proves():
		return nil, usagef("a %s evaluation is explained by why and whyNot", l.Name)
	case o.MaxTuples < 0 || o.MaxBytes < 0:
		return nil, usagef("maxTuples and maxBytes must not be negative")
	}
	// A language that does not stream its results ignores Stream.
	q := lang.Query{Name: queryName, Src: src, Dialect: dl, Program: o.Program, Options: o.RangeOptions, Stream: true,
		Nodes: o.nodes}
	if o.Printed {
		q.Nodes = nil
	}
	b := lang.Budget{MaxTuples: o.MaxTuples, MaxBytes: o.MaxBytes}
	if o.Explain {
		x, err := l.Explain(ctx, d.data, q, lang.Explain{Budget: b})
		if err != nil {
			return nil, evalError(err, raiseWith(err))
		}
		if x.Invalid() {
			return nil, diagError(x.File, x.Diagnostics)
		}
		return explanation(x)
	}
	res, err := l.Evaluate(ctx, d.data, q, b)
	if err != nil {
		return nil, evalError(err, raiseWith(err))
	}
	if res.Invalid() {
		return nil, diagError(res.File, res.Diagnostics)
	}
	if res.Nodes != nil {
		return res.Nodes, nil
	}
	if o.Printed {
		var buf bytes.Buffer
		if err := res.Print(&buf); err != nil {
			return nil, evalError(err, raiseWith(err))
		}
		return buf.String(), nil
	}
	return resultJSON(res)
}

// resultJSON is the JSON value `ctxql eval` prints for res, compact.
func resultJSON(res *lang.Result) (json.RawMessage, error) {
	b, err := res.JSON()
	if err != nil {
		return nil, evalError(err, raiseWith(err))
	}
	return json.RawMessage(b), nil
}

// Explanation is an evaluation with explain: how a PACT or JQL query
// arrives at its result.
type Explanation struct {
	// Steps are the candidates (PACT) or documents (JQL) left after each
	// step of the query.
	Steps []ExplainStep `json:"steps"`
	// Emptied is the index of the step that left nothing, or -1.
	Emptied int    `json:"emptied"`
	Summary string `json:"summary"`
	// Text is what `ctxql eval pact|jql --explain` prints.
	Text string `json:"text"`
}

// ExplainStep is one step of an Explanation.
type ExplainStep struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
	// Range is the step in the query; absent for a step with no place.
	Range *Range `json:"range,omitempty"`
}

func explanation(x *lang.Explanation) (*Explanation, error) {
	var text bytes.Buffer
	if err := x.Format(&text); err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	out := &Explanation{Steps: []ExplainStep{}, Emptied: x.Emptied, Summary: x.Summary, Text: text.String()}
	for _, st := range x.Steps {
		es := ExplainStep{Text: st.Text, Count: st.Count}
		if st.At >= 0 {
			end := st.End
			if end < st.At {
				end = st.At
			}
			es.Range = rangeOf(x.File, syntax.Span{Start: st.At, End: end})
		}
		out.Steps = append(out.Steps, es)
	}
	return out, nil
}

// WhyParams are the parameters of why and whyNot.
type WhyParams struct {
	Handle int    `json:"handle"`
	Rules  string `json:"rules"`
	Tuple  string `json:"tuple"`
	// Name names the program in the proof's rule positions, as the
	// --rules file does (default "rules").
	Name      string `json:"name,omitempty"`
	Depth     int    `json:"depth,omitempty"`
	MaxTuples int    `json:"maxTuples,omitempty"`
}

// Proof is the result of why and whyNot.
type Proof struct {
	// Derived says whether the program derives the tuple.
	Derived bool `json:"derived"`
	// Text is what `ctxql eval datalog --why` (the proof tree) or
	// `--why-not` (the first failing item of each rule) prints; for a why
	// of a tuple not derived, the summary line the command prints on
	// standard error.
	Text string `json:"text"`
}

// Why proves a tuple the Datalog program rules derives on a loaded data
// set, as `ctxql eval datalog --rules FILE --why TUPLE` does.
func (s *Session) Why(ctx context.Context, p WhyParams) (*Proof, error) {
	return s.why(ctx, p, false)
}

// WhyNot tells, for each rule of a tuple's relation, the first body item
// nothing satisfies, as `ctxql eval datalog --rules FILE --why-not TUPLE`
// does.
func (s *Session) WhyNot(ctx context.Context, p WhyParams) (*Proof, error) {
	return s.why(ctx, p, true)
}

func (s *Session) why(ctx context.Context, p WhyParams, not bool) (*Proof, error) {
	d, aerr := s.get(p.Handle)
	if aerr != nil {
		return nil, aerr
	}
	if !d.lang.Proves() {
		return nil, usagef("%s proves nothing: why and whyNot are Datalog's", d.lang.Name)
	}
	if err := lang.CheckTuple(p.Tuple); err != nil {
		return nil, usagef("%v", err)
	}
	if p.MaxTuples < 0 || p.Depth < 0 {
		return nil, usagef("depth and maxTuples must not be negative")
	}
	x := lang.Explain{Depth: p.Depth, Budget: lang.Budget{MaxTuples: p.MaxTuples}}
	if x.Depth == 0 {
		x.Depth = lang.DefaultExplainDepth
	}
	if not {
		x.WhyNot = p.Tuple
	} else {
		x.Why = p.Tuple
	}
	name := p.Name
	if name == "" {
		name = "rules"
	}
	e, err := d.lang.Explain(ctx, d.data, lang.Query{Name: name, Src: p.Rules, Program: true}, x)
	if err != nil {
		return nil, evalError(err, "the maxTuples option")
	}
	if e.Invalid() {
		return nil, diagError(e.File, e.Diagnostics)
	}
	if e.NotDerived {
		return &Proof{Derived: false, Text: e.Summary + "\n"}, nil
	}
	var text bytes.Buffer
	if err := e.Format(&text); err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	return &Proof{Derived: !not || e.Holds, Text: text.String()}, nil
}
