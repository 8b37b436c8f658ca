package qtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxql/ctxql/syntax"

	"github.com/ctxql/ctxql/lang"
)

// Status is the outcome of a case.
type Status string

// The outcomes: a case passes, fails (its expectations do not hold) or
// cannot run (its query file or data cannot be read, the test file has
// errors).
const (
	Pass  Status = "pass"
	Fail  Status = "fail"
	Error Status = "error"
)

// Result is the outcome of one case.
type Result struct {
	File     *File // the test file
	Case     *Case // nil for a test file's own errors
	Status   Status
	Messages []string // why the case failed or could not run, one line each
	Added    []string // results the query returned that want does not list
	Removed  []string // results want lists that the query did not return
	Got      []string // the results, as compact JSON, in the evaluator's order
	Duration time.Duration

	// Inputs are the query and data files the case read.
	Inputs []string

	// Where the query is: its file (the test file for an inline query) and
	// span there.
	QueryFile *syntax.File
	QuerySpan syntax.Span
}

// Name returns the case's name ("" for a test file's own errors).
func (r *Result) Name() string {
	if r.Case == nil {
		return ""
	}
	return r.Case.Name
}

// Position returns the case's position in its test file.
func (r *Result) Position() syntax.Position {
	if r.Case == nil {
		if len(r.File.Diagnostics) > 0 {
			return r.File.Src.Position(r.File.Diagnostics[0].Span.Start)
		}
		return syntax.Position{Line: 1, Column: 1}
	}
	return r.File.Src.Position(r.Case.Sp.Start)
}

// Inputs returns the query and data files the cases read, each once, in
// the order they were first read.
func Inputs(rs []*Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, p := range r.Inputs {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// canonical re-encodes a JSON value so that equal values compare equal:
// object keys sorted, numbers as written.
func canonical(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// canonicalItems canonicalises every expected item as the language l
// reads it (lang.Language.ExpectedItem), reporting the first that is not
// JSON.
func canonicalItems(l *lang.Language, items []json.RawMessage) ([]string, error) {
	out := make([]string, len(items))
	for i, it := range items {
		c, err := canonical(l.ExpectedItem(it))
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// multiset counts the items of a list.
func multiset(xs []string) map[string]int {
	m := make(map[string]int, len(xs))
	for _, x := range xs {
		m[x]++
	}
	return m
}

// setDiff returns what got has that want lacks and what want has that got
// lacks, each in its list's order; results are compared as sets.
func setDiff(want, got []string) (added, removed []string) {
	w, g := multiset(want), multiset(got)
	for _, x := range got {
		if w[x] == 0 && !slices.Contains(added, x) {
			added = append(added, x)
		}
	}
	for _, x := range want {
		if g[x] == 0 && !slices.Contains(removed, x) {
			removed = append(removed, x)
		}
	}
	return added, removed
}

// check compares results with the case's expectations and fills r.
func (r *Result) check(l *lang.Language, c *Case, got []string) {
	r.Got = got
	if c.Want != nil {
		want, err := canonicalItems(l, c.Want.Items)
		if err != nil {
			r.fail("want: %v", err)
			return
		}
		r.Added, r.Removed = setDiff(want, got)
		if len(r.Added) > 0 || len(r.Removed) > 0 {
			r.fail("results differ from want: %d unexpected, %d missing (want %d, got %d)", len(r.Added), len(r.Removed), len(unique(want)), len(unique(got)))
		}
	}
	if c.Count != nil && len(unique(got)) != *c.Count {
		r.fail("count: want %d result(s), got %d", *c.Count, len(unique(got)))
	}
	if c.Includes != nil {
		inc, err := canonicalItems(l, c.Includes.Items)
		if err != nil {
			r.fail("includes: %v", err)
			return
		}
		for _, x := range inc {
			if !slices.ContainsFunc(got, func(g string) bool { return matches(x, g) }) {
				r.Removed = append(r.Removed, x)
				r.fail("includes: %s is not among the results", Display(x))
			}
		}
	}
	if c.Excludes != nil {
		exc, err := canonicalItems(l, c.Excludes.Items)
		if err != nil {
			r.fail("excludes: %v", err)
			return
		}
		for _, x := range exc {
			if slices.ContainsFunc(got, func(g string) bool { return matches(x, g) }) {
				r.Added = append(r.Added, x)
				r.fail("excludes: %s is among the results", Display(x))
			}
		}
	}
	if r.Status == "" {
		r.Status = Pass
	}
}

// matches reports whether the result got is the expected item want: the
// same JSON value, or, when both are objects, an object with every field of
// want (recursively), so that includes and excludes can name a JQL document
// by the fields that matter.
func matches(want, got string) bool {
	if want == got {
		return true
	}
	var w, g any
	if json.Unmarshal([]byte(want), &w) != nil || json.Unmarshal([]byte(got), &g) != nil {
		return false
	}
	return subset(w, g)
}

func subset(w, g any) bool {
	wm, ok1 := w.(map[string]any)
	gm, ok2 := g.(map[string]any)
	if !ok1 || !ok2 {
		a, _ := json.Marshal(w)
		b, _ := json.Marshal(g)
		return string(a) == string(b)
	}
	for k, wv := range wm {
		gv, ok := gm[k]
		if !ok || !subset(wv, gv) {
			return false
		}
	}
	return true
}

func (r *Result) fail(format string, args ...any) {
	r.Status = Fail
	r.Messages = append(r.Messages, fmt.Sprintf(format, args...))
}

func (r *Result) errorf(format string, args ...any) {
	r.Status = Error
	r.Messages = append(r.Messages, fmt.Sprintf(format, args...))
}

func unique(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
