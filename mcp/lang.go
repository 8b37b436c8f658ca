package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// LangArgs are the parameters of jql_query and datalog_query.
type LangArgs struct {
	Query string `json:"query" jsonschema:"the query text"`
	Data  string `json:"data" jsonschema:"data file or directory, relative to the project directory"`
}

// DatalogArgs are the parameters of datalog_query.
type DatalogArgs struct {
	Query   string `json:"query" jsonschema:"a query rule, or a program of rules and facts when program is true"`
	Data    string `json:"data" jsonschema:"data file (RelationData JSON) or facts directory, relative to the project directory"`
	Program bool   `json:"program,omitempty" jsonschema:"evaluate a whole program and return every derived relation"`
}

// PactArgs are the parameters of pact_select.
type PactArgs struct {
	Query   string         `json:"query" jsonschema:"a PACT selector (v1) or query (v2)"`
	Data    string         `json:"data" jsonschema:"context snapshot file ({root} or {snapshots}), relative to the project directory"`
	Dialect string         `json:"dialect,omitempty" jsonschema:"v1 or v2 (default v2)"`
	Options map[string]any `json:"options,omitempty" jsonschema:"range options: includeContent, contentMode, contextLines, maxSnapshots, maxChangesPerSnapshot"`
}

// SchemaArgs are the parameters of jql_schema.
type SchemaArgs struct {
	Query string `json:"query,omitempty" jsonschema:"a JQL query to check against the schema; empty returns the schema"`
}

// Diag is a diagnostic with its byte span and 1-based line and byte column.
// Origin says what produced it, as for the command line and the editor:
// "syntax" (the query does not parse), "check" (it parses but the
// evaluator refuses it), "rule" or "data".
type Diag struct {
	Severity string `json:"severity"`
	Origin   string `json:"origin,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// LangResult is the response of the language tools: results, or the
// diagnostics that prevented them, with warnings.
type LangResult struct {
	Results     any    `json:"results"`
	Diagnostics []Diag `json:"diagnostics"`
}

func diags(name, src string, ds []syntax.Diagnostic) []Diag {
	f := syntax.NewFile(name, src)
	out := make([]Diag, 0, len(ds))
	for _, d := range ds {
		p := f.Position(d.Span.Start)
		out = append(out, Diag{Severity: d.Severity.String(), Origin: string(d.Origin), Code: d.Code, Message: d.Message,
			Start: d.Span.Start, End: d.Span.End, Line: p.Line, Column: p.Column})
	}
	return out
}

// dataPath checks a data argument and returns it relative to the project
// directory, the name the confined reader opens (links resolved, every file
// checked as it is opened).
func (s *Server) dataPath(ctx context.Context, p string) (string, error) {
	if p == "" {
		return "", errors.New("data is required")
	}
	if s.filesErr != nil {
		return "", s.filesErr
	}
	rel, _, err := acp.ConfineContext(ctx, s.ix.Root, p)
	return filepath.FromSlash(rel), err
}

// PACT answers pact_select. A query that does not parse or compile is
// answered with its diagnostics, not with a tool error.
func (s *Server) PACT(ctx context.Context, a PactArgs) (any, error) {
	if err := s.checkQuery("pact_select", a.Query); err != nil {
		return nil, err
	}
	l := lang.ByID(lang.PACT)
	dialect, err := lang.DialectOr(a.Dialect, lang.V2)
	if err != nil {
		return nil, fmt.Errorf("pact_select: dialect %w", err)
	}
	var raw []byte
	if a.Options != nil {
		raw, _ = json.Marshal(a.Options)
	}
	if err := l.CheckOptions(raw); err != nil {
		return nil, fmt.Errorf("pact_select: options: %w", err)
	}
	d, err := s.load(ctx, "pact_select", l, a.Data)
	if err != nil {
		return nil, err
	}
	res, err := l.Evaluate(ctx, d, lang.Query{Name: "query", Src: a.Query, Dialect: dialect, Options: raw}, lang.Budget{})
	if err != nil {
		return nil, fmt.Errorf("pact_select: %w", err)
	}
	if res.Invalid() {
		return LangResult{Results: []any{}, Diagnostics: diags("query", a.Query, res.Diagnostics)}, nil
	}
	return LangResult{Results: res.Value, Diagnostics: []Diag{}}, nil
}

// load loads the data argument of a tool for the language l through the
// project's confined reader.
func (s *Server) load(ctx context.Context, tool string, l *lang.Language, data string) (lang.Data, error) {
	rel, err := s.dataPath(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	// The data serves this one call: a JQL file is read as the query
	// runs, not held in memory first.
	d, err := l.LoadOnce(ctx, s.files, rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	return d, nil
}

// MaxQueryDepth is the deepest bracket nesting a query may have.
const MaxQueryDepth = 1000

// checkQuery refuses a query text over the size budget or nested deeper
// than MaxQueryDepth brackets, before any parser sees it: a parser's work
// can grow faster than its input with the nesting, and it does not look at
// the deadline while it parses.
func (s *Server) checkQuery(tool, q string) error {
	if len(q) > s.budget.MaxQueryBytes {
		return fmt.Errorf("%s: %w", tool, budget.OutputLimit("query", s.budget.MaxQueryBytes).WithFlag(FlagMaxQueryBytes))
	}
	depth := 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '(', '[', '{':
			depth++
			if depth > MaxQueryDepth {
				return fmt.Errorf("%s: the query nests brackets deeper than %d levels", tool, MaxQueryDepth)
			}
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// checkResults refuses more than the budget's result rows.
func (s *Server) checkResults(tool string, n int) error {
	if n > s.budget.MaxResults {
		return fmt.Errorf("%s: %w", tool, &budget.LimitError{What: "result count", Limit: fmt.Sprint(s.budget.MaxResults), Flag: budget.FlagMaxResults})
	}
	return nil
}

// JQL answers jql_query.
func (s *Server) JQL(ctx context.Context, a LangArgs) (any, error) {
	if err := s.checkQuery("jql_query", a.Query); err != nil {
		return nil, err
	}
	l := lang.ByID(lang.JQL)
	d, err := s.load(ctx, "jql_query", l, a.Data)
	if err != nil {
		return nil, err
	}
	res, err := l.Evaluate(ctx, d, lang.Query{Name: "query", Src: a.Query}, s.budget.langBudget())
	if err != nil {
		return nil, fmt.Errorf("jql_query: %w", raise(err, budget.FlagMaxOutputBytes))
	}
	if res.Invalid() {
		return LangResult{Results: []any{}, Diagnostics: diags("query", a.Query, res.Diagnostics)}, nil
	}
	if err := s.checkResults("jql_query", res.Count); err != nil {
		return nil, err
	}
	return LangResult{Results: res.Value, Diagnostics: diags("query", a.Query, res.Diagnostics)}, nil
}

// JQLSchema answers jql_schema.
func (s *Server) JQLSchema(a SchemaArgs) any {
	sc := lang.JQLSchema()
	if a.Query == "" {
		return sc
	}
	ds := lang.ByID(lang.JQL).CheckQuery("query", a.Query, lang.DialectUnset)
	return LangResult{Results: map[string]any{"valid": !syntax.HasErrors(ds)}, Diagnostics: diags("query", a.Query, ds)}
}

// Datalog answers datalog_query.
func (s *Server) Datalog(ctx context.Context, a DatalogArgs) (any, error) {
	if err := s.checkQuery("datalog_query", a.Query); err != nil {
		return nil, err
	}
	l := lang.ByID(lang.Datalog)
	d, err := s.load(ctx, "datalog_query", l, a.Data)
	if err != nil {
		return nil, err
	}
	res, err := l.Evaluate(ctx, d, lang.Query{Name: "query", Src: a.Query, Program: a.Program}, s.budget.langBudget())
	if err != nil {
		return nil, fmt.Errorf("datalog_query: %w", raise(err, FlagMaxTuples))
	}
	if err := s.checkResults("datalog_query", res.Count); err != nil {
		return nil, err
	}
	return LangResult{Results: res.Value, Diagnostics: diags("query", a.Query, res.Diagnostics)}, nil
}
