package jql

import (
	"context"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// Row is what a relational table keeps of one document so that a database
// selects and orders documents exactly as Eval does: the document's sort
// key, the id a startAfter cursor matches, and every node of the document
// under the path a where condition names it by.
type Row struct {
	// Rank orders createTime: 0 missing (or not a string), 1 an RFC 3339
	// time, 2 any other string.
	Rank int
	// Sec and Nsec are the instant of an RFC 3339 createTime (rank 1).
	Sec  int64
	Nsec int32
	// Str is a createTime that is no time (rank 2), "" otherwise.
	Str string
	// ID is the id the order breaks ties with: the string, the JSON text
	// of another value, "" when absent.
	ID string
	// CursorID is the id a startAfter cursor matches, when id is a string.
	CursorID string
	// HasCursorID is true when id is a string.
	HasCursorID bool
	// Nodes are the document's values, arrays crossed.
	Nodes []Node
}

// Node is one value of a document reached by a field path: arrays are
// crossed at every step (their elements sit under the same path), and an
// array is a node of its own too, so that exists finds an empty one.
type Node struct {
	// Path is the field names from the document's root.
	Path []string
	// Kind is "object", "array", "string", "number", "true", "false" or
	// "null".
	Kind string
	// Str is a string's value.
	Str string
	// Lower is strings.ToLower(Str) when it differs from Str, the text
	// contains searches.
	Lower string
	// HasLower is true when Lower is set.
	HasLower bool
	// Num is a number's value as a float64.
	Num float64
	// IsTime is true for a string that reads as an RFC 3339 time; Sec and
	// Nsec are then its instant.
	IsTime bool
	Sec    int64
	Nsec   int32
}

// TableRow derives the table row of one raw document. ok is false for a
// document that is not an object, which no query returns.
func TableRow(raw []byte) (row Row, ok bool, err error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(raw)
	if err != nil {
		return Row{}, false, dataErr("%w", err)
	}
	if v.Type() != fastjson.TypeObject {
		return Row{}, false, nil
	}
	k := keyOf(v)
	row = Row{Rank: k.rank, ID: k.id}
	switch k.rank {
	case 1:
		row.Sec, row.Nsec = k.sec, k.nsec
	case 2:
		row.Str = k.s
	}
	if id := v.Get("id"); id != nil && id.Type() == fastjson.TypeString {
		row.CursorID, row.HasCursorID = string(id.GetStringBytes()), true
	}
	o, _ := v.Object()
	seen := map[string]bool{}
	o.Visit(func(key []byte, ch *fastjson.Value) {
		if seen[string(key)] {
			return // Get finds the first member of a name
		}
		seen[string(key)] = true
		row.Nodes = appendNodes(row.Nodes, []string{string(key)}, ch)
	})
	return row, true, nil
}

// appendNodes appends the nodes of v, reached by path, and of everything
// under it: the walk present and anyValue make.
func appendNodes(out []Node, path []string, v *fastjson.Value) []Node {
	n := Node{Path: path}
	switch v.Type() {
	case fastjson.TypeArray:
		n.Kind = "array"
		out = append(out, n)
		a, _ := v.Array()
		for _, e := range a {
			out = appendNodes(out, path, e)
		}
		return out
	case fastjson.TypeObject:
		n.Kind = "object"
		out = append(out, n)
		o, _ := v.Object()
		seen := map[string]bool{}
		o.Visit(func(key []byte, ch *fastjson.Value) {
			if seen[string(key)] {
				return
			}
			seen[string(key)] = true
			out = appendNodes(out, append(path[:len(path):len(path)], string(key)), ch)
		})
		return out
	case fastjson.TypeString:
		n.Kind = "string"
		n.Str = string(v.GetStringBytes())
		if low := strings.ToLower(n.Str); low != n.Str {
			n.Lower, n.HasLower = low, true
		}
		if t, ok := parseTime(n.Str); ok {
			n.IsTime, n.Sec, n.Nsec = true, t.Unix(), int32(t.Nanosecond())
		}
	case fastjson.TypeNumber:
		n.Kind = "number"
		n.Num, _ = v.Float64()
	case fastjson.TypeTrue:
		n.Kind = "true"
	case fastjson.TypeFalse:
		n.Kind = "false"
	case fastjson.TypeNull:
		n.Kind = "null"
	}
	return append(out, n)
}

// LiteralTime reports the instant of a string operand that reads as an
// RFC 3339 time, as the evaluator compares it.
func LiteralTime(s string) (sec int64, nsec int32, ok bool) {
	t, ok := parseTime(s)
	if !ok {
		return 0, 0, false
	}
	return t.Unix(), int32(t.Nanosecond()), true
}

// Prepare checks a query as Eval does: an invalid query is a *QueryError,
// and the warnings are the non-fatal diagnostics Eval reports with its
// result.
func Prepare(q *syn.Query, parseDiags []syntax.Diagnostic) (warnings []syntax.Diagnostic, err error) {
	_, warns, err := prepare(q, parseDiags)
	return warns, err
}

// CursorError is the error Eval returns when the startAfter id of q names
// no document.
func CursorError(q *syn.Query) error {
	return &QueryError{Diagnostics: []syntax.Diagnostic{{
		Span: q.StartAfterValue.Sp, Severity: syntax.SeverityError, Code: syn.CodeInvalidCursor,
		Message: fmt.Sprintf("%s: startAfter %q names no document in %s", syn.CodeInvalidCursor, q.StartAfter, q.Domain()),
	}}}
}

// Finish projects documents that were selected, ordered, cut to the limit
// and placed after the cursor elsewhere (a database running the compiled
// query), giving the Result Eval gives: the same projection, warnings and
// byte budget.
func Finish(ctx context.Context, q *syn.Query, parseDiags []syntax.Diagnostic, docs [][]byte, opts Options) (*Result, error) {
	pl, warns, err := prepare(q, parseDiags)
	if err != nil {
		return nil, err
	}
	res := &Result{Warnings: warns}
	var p fastjson.Parser
	budget, size := opts.maxBytes(), int64(0)
	for _, raw := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := p.ParseBytes(raw)
		if err != nil {
			return nil, dataErr("%w", err)
		}
		if v.Type() != fastjson.TypeObject {
			return nil, dataErr("a stored document is not an object")
		}
		d := pl.project(nil, v)
		size += int64(len(d)) + 4
		if budget > 0 && size > budget {
			flag := opts.MaxBytesFlag
			if flag == "" {
				flag = "--max-bytes"
			}
			return nil, &BudgetError{Limit: "the result", Max: budget, Unit: "bytes", Flag: flag}
		}
		res.Docs = append(res.Docs, d)
	}
	return res, nil
}
