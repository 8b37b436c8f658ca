package qtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// Options configure Run.
type Options struct {
	// Run selects the cases whose name it matches (nil: every case).
	Run *regexp.Regexp
	// Jobs is how many cases run at once (0: one per CPU).
	Jobs int
	// Reader reads test files, query files and data (nil: the default
	// reader).
	Reader *files.Reader
	// Config returns the project configuration that applies to a test
	// file (nil: none).
	Config func(testFile string) *config.Config
	// Budget bounds each evaluation.
	Budget lang.Budget
	// Timeout bounds each case (0: none).
	Timeout time.Duration
	// Coverage records which parts of the queries the cases exercised.
	Coverage bool
	// Profile records the time and rows of each part of the queries.
	Profile bool
	// OpenEngine opens the databases that data paths may name as engine
	// URLs (sqlite:FILE, postgres://…); nil: such data cannot be read.
	OpenEngine lang.EngineOpener
}

// Run parses the test files at paths and runs their cases. Results come in
// file order and, within a file, in case order, whatever order the cases
// ran in; a test file with errors is one result of status Error. The
// coverage is nil unless opts.Coverage is set.
func Run(ctx context.Context, paths []string, opts Options) ([]*Result, *Coverage, error) {
	r := &runner{opts: opts, reader: opts.Reader}
	if r.reader == nil {
		r.reader = &files.Reader{}
	}
	r.data = lang.NewDataCache(ctx, r.reader).WithEngines(opts.OpenEngine)
	if opts.Coverage || opts.Profile {
		r.cov = newCoverage()
	}
	type job struct {
		f    *File
		c    *Case
		slot int
	}
	var (
		results []*Result
		jobs    []job
	)
	for _, p := range paths {
		src, err := r.reader.ReadFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", p, err)
		}
		f := Parse(p, src)
		if len(f.Diagnostics) > 0 {
			res := &Result{File: f, Status: Error}
			for _, d := range f.Diagnostics {
				res.Messages = append(res.Messages, fmt.Sprintf("%s: %s", f.Src.Position(d.Span.Start), d.Message))
			}
			results = append(results, res)
			continue
		}
		for _, c := range f.Cases {
			if opts.Run != nil && !opts.Run.MatchString(c.Name) {
				continue
			}
			jobs = append(jobs, job{f, c, len(results)})
			results = append(results, &Result{File: f, Case: c})
		}
	}
	n := opts.Jobs
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	next := make(chan job)
	var wg sync.WaitGroup
	for range min(n, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				r.runCase(ctx, results[j.slot])
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return results, nil, err
	}
	if r.cov != nil {
		r.cov.finish()
	}
	return results, r.cov, nil
}

type runner struct {
	opts   Options
	reader *files.Reader
	data   *lang.DataCache
	cov    *Coverage
}

// settings returns the language settings of a test file's queries: the
// configuration that applies to it, and the case's dialect as the
// strongest setting after a file's own pragma.
func (r *runner) settings(f *File, c *Case) lang.Settings {
	s := lang.Settings{Load: r.data.Load}
	if r.opts.Config != nil {
		s.Config = r.opts.Config(f.Name)
	}
	if c.Dialect != "" {
		s.Editor, _ = lang.ParseDialect(c.Dialect)
	}
	return s
}

// rel resolves a path of a test file relative to its directory (the file
// of a sqlite: or duckdb: engine URL too).
func rel(f *File, p string) string {
	if !lang.IsEngineURL(p) {
		p = filepath.FromSlash(p)
	}
	return lang.ResolveData(filepath.Dir(f.Name), p)
}

func (r *runner) runCase(ctx context.Context, res *Result) {
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	if r.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
	}
	f, c := res.File, res.Case
	q, err := r.query(f, c)
	if err != nil {
		res.errorf("%v", err)
		return
	}
	if !q.inline {
		res.Inputs = append(res.Inputs, q.parsed.File.Name())
	}
	if c.Data != nil && c.Data.Path != "" {
		res.Inputs = append(res.Inputs, rel(f, c.Data.Path))
	}
	res.QueryFile, res.QuerySpan = q.parsed.File, q.span
	if q.inline {
		res.QueryFile, res.QuerySpan = f.Src, c.QuerySp
	}
	if bad := q.invalid(); len(bad) > 0 || c.Error != "" {
		r.checkError(ctx, res, c, q)
		return
	}
	d, err := r.loadData(ctx, f, c, q.parsed)
	if err != nil {
		res.errorf("data: %v", err)
		return
	}
	results, err := q.parsed.Lang.EvaluateFile(ctx, d, q.parsed, r.opts.Budget)
	if err != nil {
		res.errorf("evaluate: %v", err)
		return
	}
	one, err := q.pick(results, c)
	if err != nil {
		res.errorf("%v", err)
		return
	}
	if one.Err != nil {
		res.errorf("evaluate: %v", one.Err)
		return
	}
	if bad := syntax.Invalid(one.Diagnostics); len(bad) > 0 {
		res.errorf("the query has errors: %s", describe(one.File, bad))
		return
	}
	res.QuerySpan = q.span
	if q.inline {
		res.QuerySpan = c.QuerySp
	}
	got, err := items(one)
	if err != nil {
		res.errorf("%v", err)
		return
	}
	res.check(one.Lang, c, got)
	if r.cov != nil && !q.inline {
		r.cov.record(ctx, q.parsed, one, d, r.opts)
	}
}

// query is the query a case runs: a parsed file (an inline query is a file
// of its own) and, once evaluated, which of the file's results is the one.
type query struct {
	parsed *lang.Parsed
	inline bool
	span   syntax.Span // the query in its file, once known
	line   int         // the 1-based line that picks the query, or 0
}

// query reads and parses the case's query.
func (r *runner) query(f *File, c *Case) (*query, error) {
	if c.Query != "" {
		l := lang.ByID(lang.ID(c.Language))
		if c.Language == "" && c.File != "" {
			l = lang.ForName(c.File)
		}
		if l == nil || !l.CanEvaluate() {
			return nil, fmt.Errorf("unknown query language %q (want pact, jql or datalog)", c.Language)
		}
		name := l.InlineName(f.Name+"#"+c.Name, c.Query)
		p, err := lang.ParseFile(name, c.Query, r.settings(f, c))
		if err != nil {
			return nil, err
		}
		return &query{parsed: p, inline: true}, nil
	}
	name := rel(f, c.File)
	l := lang.ForName(name)
	if l == nil || !l.CanEvaluate() {
		return nil, fmt.Errorf("%s: not a PACT, JQL or Datalog file", c.File)
	}
	src, err := r.reader.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("query file: %w", err)
	}
	p, err := lang.ParseFile(name, string(src), r.settings(f, c))
	if err != nil {
		return nil, err
	}
	q := &query{parsed: p, line: c.Line}
	if c.Line > p.File.LineCount() {
		return nil, fmt.Errorf("%s has %d line(s), not %d", c.File, p.File.LineCount(), c.Line)
	}
	return q, nil
}

// invalid returns the errors that make the case's query invalid: those
// on its line when a line picks it from its file, else every one.
func (q *query) invalid() []syntax.Diagnostic {
	bad := q.parsed.Invalid()
	if q.line == 0 {
		return bad
	}
	return slices.DeleteFunc(slices.Clone(bad), func(d syntax.Diagnostic) bool {
		return q.parsed.File.LineOf(d.Span.Start)+1 != q.line
	})
}

// pick returns the result the case is about: the query on its line, the
// relation it names, or the file's only result.
func (q *query) pick(results []lang.Result, c *Case) (*lang.Result, error) {
	if len(results) == 1 && results[0].Invalid() {
		return &results[0], nil
	}
	switch {
	case c.Relation != "":
		for i := range results {
			if results[i].Relation == c.Relation {
				q.span = results[i].Span
				return &results[i], nil
			}
		}
		var names []string
		for _, r := range results {
			names = append(names, r.Relation)
		}
		return nil, fmt.Errorf("no rule derives relation %s (the rules derive %s)", c.Relation, strings.Join(names, ", "))
	case q.line > 0:
		for i := range results {
			sp := results[i].Span
			if results[i].File.LineOf(sp.Start)+1 <= q.line && q.line <= results[i].File.LineOf(max(sp.End-1, sp.Start))+1 {
				q.span = sp
				return &results[i], nil
			}
		}
		return nil, fmt.Errorf("%s has no query on line %d", filepath.Base(q.parsed.File.Name()), q.line)
	case len(results) == 1:
		q.span = results[0].Span
		return &results[0], nil
	case len(results) == 0:
		return nil, fmt.Errorf("%s has no query", filepath.Base(q.parsed.File.Name()))
	}
	what := "line"
	if results[0].Relation != "" {
		what = "relation"
	}
	return nil, fmt.Errorf("%s has %d queries: give the case a %s", filepath.Base(q.parsed.File.Name()), len(results), what)
}

// loadData loads the case's data: a file or a database through the shared
// cache, inline data on its own; a case without data reads what the
// query file's data pragma or the configuration (.ctxql.yaml) names.
func (r *runner) loadData(ctx context.Context, f *File, c *Case, p *lang.Parsed) (lang.Data, error) {
	l := p.Lang
	if c.Data == nil {
		if path, ok := r.settings(f, c).DataPath(p.File.Name(), p); ok {
			return r.data.Load(l, path)
		}
		return nil, errors.New("the case has no data: give data here, at the top of the file, or for its query file in .ctxql.yaml")
	}
	if c.Data.Inline != nil {
		return l.LoadBytes(ctx, f.Name+"#"+c.Name, c.Data.Inline)
	}
	return r.data.Load(l, rel(f, c.Data.Path))
}

// items returns a result's items as canonical JSON.
func items(res *lang.Result) ([]string, error) {
	n := 0
	if res.Items != nil {
		n = res.Items.Len()
	}
	out := make([]string, 0, n)
	for i := range n {
		b, err := json.Marshal(res.Items.At(i))
		if err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		s, err := canonical(b)
		if err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// checkError compares the errors "ctxql check" reports for the query
// (validity and rules, under the test file's configuration) with the error
// the case expects; a case that expects none fails on an invalid query.
func (r *runner) checkError(ctx context.Context, res *Result, c *Case, q *query) {
	if c.Error == "" {
		res.errorf("the query has errors: %s", describe(q.parsed.File, q.invalid()))
		return
	}
	l, err := lint.New(q.parsed.Dialect)
	if err != nil {
		res.errorf("%v", err)
		return
	}
	if r.opts.Config != nil {
		l = l.WithConfig(r.opts.Config(res.File.Name))
	}
	_, ds, err := l.Check(ctx, q.parsed.File.Name(), q.parsed.File.Text())
	if err != nil {
		res.errorf("%v", err)
		return
	}
	ds = slices.DeleteFunc(ds, func(d syntax.Diagnostic) bool {
		return d.Severity != syntax.SeverityError || (q.line > 0 && q.parsed.File.LineOf(d.Span.Start)+1 != q.line)
	})
	if len(ds) == 0 {
		res.fail("error: want an error %s, but the query has none", c.Error)
		return
	}
	for _, d := range ds {
		if d.Code == c.Error {
			res.Status = Pass
			return
		}
	}
	res.fail("error: want %s, got %s", c.Error, describe(q.parsed.File, ds))
}

// describe lists diagnostics as "line:col: message [code]".
func describe(f *syntax.File, ds []syntax.Diagnostic) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%s: %s [%s]", f.Position(d.Span.Start), d.Message, d.Code))
	}
	return strings.Join(parts, "; ")
}
