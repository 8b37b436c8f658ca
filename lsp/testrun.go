package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/fileuri"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/qtest"
	"github.com/ctxql/ctxql/syntax"
)

// CommandTest is the workspace/executeCommand command that runs the cases
// of a query test file (*.ctxqltest.yaml) as "ctxql test" does, from the
// saved files. Its arguments are [uri] (every case) or [uri, name] (the
// case of that name). The result is a testRun; a failing case becomes a
// diagnostic on the query it tests and one on the case, until a run of
// the case passes.
const CommandTest = "ctxql.test"

// caseTimeout bounds each case run from the editor.
const caseTimeout = 30 * time.Second

// testRun is the result of CommandTest.
type testRun struct {
	URI     string          `json:"uri"`
	Passed  int             `json:"passed"`
	Failed  int             `json:"failed"`
	Errors  int             `json:"errors"`
	Results []testRunResult `json:"results"`
	Error   string          `json:"error,omitempty"`
}

// testRunResult is the outcome of one case: its position in the test file
// and its query's, as in "ctxql test --format json".
type testRunResult struct {
	Name     string            `json:"name"`
	Status   qtest.Status      `json:"status"`
	Range    Range             `json:"range"`
	Query    *Location         `json:"query,omitempty"`
	Messages []string          `json:"messages"`
	Added    []json.RawMessage `json:"added"`
	Removed  []json.RawMessage `json:"removed"`
}

// runTests executes CommandTest.
func (s *server) runTests(ctx context.Context, args []json.RawMessage) testRun {
	var uri, name string
	if len(args) < 1 || json.Unmarshal(args[0], &uri) != nil || (len(args) > 1 && json.Unmarshal(args[1], &name) != nil) {
		return s.testFailed(ctx, uri, CommandTest+" needs the arguments [uri] or [uri, case name]")
	}
	path := FilePath(uri)
	if path == "" || !qtest.IsTestFile(path) {
		return s.testFailed(ctx, uri, fmt.Sprintf("Cannot run the tests of %s: not a query test file (%s).", uri, strings.Join(qtest.Suffixes, ", ")))
	}
	opts := qtest.Options{Reader: s.ws.reader(), Timeout: caseTimeout, Budget: lang.Budget{},
		Config: func(string) *config.Config { return s.ws.Project(&Snapshot{URI: uri}) }}
	if name != "" {
		opts.Run = regexp.MustCompile("^" + regexp.QuoteMeta(name) + "$")
	}
	results, _, err := qtest.Run(ctx, []string{path}, opts)
	if err != nil {
		return s.testFailed(ctx, uri, fmt.Sprintf("Cannot run the tests of %s: %v.", filepath.Base(path), err))
	}
	if len(results) == 0 {
		return s.testFailed(ctx, uri, fmt.Sprintf("%s has no case named %q: save the file to run a case added since.", filepath.Base(path), name))
	}
	out := testRun{URI: uri, Results: []testRunResult{}}
	sum := qtest.Summarize(results)
	out.Passed, out.Failed, out.Errors = sum.Passed, sum.Failed, sum.Errors
	for _, r := range results {
		out.Results = append(out.Results, s.testResultOf(r))
	}
	s.publishTests(path, name, results)
	what := filepath.Base(path)
	if name != "" {
		what = fmt.Sprintf("%q", name)
	}
	if sum.OK() {
		s.showMessage(ctx, messageInfo, fmt.Sprintf("ctxql test %s: %d passed.", what, sum.Passed))
	} else {
		s.showMessage(ctx, messageWarning, fmt.Sprintf("ctxql test %s: %d passed, %d failed.", what, sum.Passed, sum.Failed+sum.Errors))
	}
	return out
}

// testFailed shows why the tests could not run and answers with the same
// text.
func (s *server) testFailed(ctx context.Context, uri, msg string) testRun {
	s.showMessage(ctx, messageWarning, msg)
	return testRun{URI: uri, Results: []testRunResult{}, Error: msg}
}

// testResultOf is the wire form of a result.
func (s *server) testResultOf(r *qtest.Result) testRunResult {
	sp := syntax.Sp(0, 0)
	if r.Case != nil {
		sp = syntax.Sp(r.Case.Sp.Start, r.Case.Sp.Start)
	} else if len(r.File.Diagnostics) > 0 {
		sp = r.File.Diagnostics[0].Span
	}
	out := testRunResult{Name: r.Name(), Status: r.Status, Range: s.rangeOf(r.File.Src, sp),
		Messages: append([]string{}, r.Messages...), Added: qtest.RawJSON(r.Added), Removed: qtest.RawJSON(r.Removed)}
	if r.QueryFile != nil {
		out.Query = &Location{URI: uriOfPath(r.QueryFile.Name()), Range: s.rangeOf(r.QueryFile, r.QuerySpan)}
	}
	return out
}

// uriOfPath is the URI of a file that qtest read (a path), or the name
// itself when it already is a URI.
func uriOfPath(name string) string {
	if strings.Contains(name, "://") {
		return name
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	return fileuri.FromPath(abs)
}

// testDiag is a diagnostic of a failing case on a file: the query's file
// or the test file, as the run read it.
type testDiag struct {
	path string
	file *syntax.File // the text the span is of
	diag syntax.Diagnostic
}

// testStore holds the diagnostics of the failing cases of the tests run
// from the editor, by test file and case, until a run of the case passes.
// The zero value is ready to use.
type testStore struct {
	mu    sync.Mutex
	cases map[string]map[string][]testDiag // test file path → case name → diagnostics
}

// replace records the diagnostics of a run of the test file at path (of
// one case when name is set, else of all) and returns the paths whose
// test diagnostics changed.
func (t *testStore) replace(path, name string, ds map[string][]testDiag) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cases == nil {
		t.cases = map[string]map[string][]testDiag{}
	}
	old := t.cases[path]
	var touched []string
	for n, list := range old {
		if name == "" || n == name {
			for _, d := range list {
				touched = append(touched, d.path)
			}
			delete(old, n)
		}
	}
	if old == nil {
		old = map[string][]testDiag{}
		t.cases[path] = old
	}
	for n, list := range ds {
		old[n] = list
		for _, d := range list {
			touched = append(touched, d.path)
		}
	}
	slices.Sort(touched)
	return slices.Compact(touched)
}

// at returns the recorded diagnostics on the file at path, with the text
// they were computed on.
func (t *testStore) at(path string) []testDiag {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []testDiag
	for _, cases := range t.cases {
		for _, list := range cases {
			for _, d := range list {
				if d.path == path {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// on returns the test diagnostics of an open document, moved onto its
// current text by line and column when it changed since the run.
func (t *testStore) on(snap *Snapshot) []syntax.Diagnostic {
	path := FilePath(snap.URI)
	if path == "" {
		return nil
	}
	var out []syntax.Diagnostic
	for _, d := range t.at(path) {
		out = append(out, moveDiag(d, snap.File))
	}
	return out
}

// moveDiag returns d on the text of f: the same span when f has the text
// d was computed on, else the same lines and columns, clamped.
func moveDiag(d testDiag, f *syntax.File) syntax.Diagnostic {
	out := d.diag
	if d.file.Text() == f.Text() {
		return out
	}
	at := func(off int) int {
		line := d.file.LineOf(off)
		if line >= f.LineCount() {
			return f.Len()
		}
		return min(f.LineStart(line)+off-d.file.LineStart(line), f.LineEnd(line))
	}
	start, end := at(d.diag.Span.Start), at(d.diag.Span.End)
	out.Span = syntax.Sp(start, max(start, end))
	return out
}

// testDiagsOf returns the diagnostics of the failing results, by case:
// one on the query (when the run found it) and one on the case.
func testDiagsOf(results []*qtest.Result) map[string][]testDiag {
	out := map[string][]testDiag{}
	for _, r := range results {
		if r.Status == qtest.Pass || r.Case == nil {
			if r.Case != nil {
				out[r.Name()] = nil
			}
			continue
		}
		msg := failureText(r)
		testPos := r.Position()
		caseLine := r.File.Src.LineOf(r.Case.Sp.Start)
		onCase := syntax.Diagnostic{Span: syntax.Sp(r.Case.Sp.Start, r.File.Src.LineEnd(caseLine)),
			Severity: syntax.SeverityError, Message: msg}
		list := []testDiag{{path: r.File.Name, file: r.File.Src, diag: onCase}}
		if r.QueryFile != nil {
			qmsg := fmt.Sprintf("%s (%s:%d)", msg, filepath.Base(r.File.Name), testPos.Line)
			list = append(list, testDiag{path: r.QueryFile.Name(), file: r.QueryFile,
				diag: syntax.Diagnostic{Span: r.QuerySpan, Severity: syntax.SeverityError, Message: qmsg}})
		}
		out[r.Name()] = list
	}
	return out
}

// failureText is a failing case as a diagnostic says it: the case, what
// did not hold, and the results added (+) and removed (-), at most ten of
// each.
func failureText(r *qtest.Result) string {
	verb := "failed"
	if r.Status == qtest.Error {
		verb = "cannot run"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "test %q %s: %s", r.Name(), verb, strings.Join(r.Messages, "; "))
	for _, side := range []struct {
		mark  string
		items []string
	}{{"+", r.Added}, {"-", r.Removed}} {
		for i, x := range side.items {
			if i == 10 {
				fmt.Fprintf(&b, "\n%s … and %d more", side.mark, len(side.items)-10)
				break
			}
			fmt.Fprintf(&b, "\n%s %s", side.mark, qtest.Display(x))
		}
	}
	return b.String()
}

// publishTests records the diagnostics of a run and publishes them: an
// open document is diagnosed again (its own diagnostics and the tests'),
// a file that is not open gets the tests' diagnostics alone.
func (s *server) publishTests(path, name string, results []*qtest.Result) {
	ds := testDiagsOf(results)
	// Inline queries and query files are named as the run read them;
	// record them by absolute path, as the documents' URIs give them.
	for _, list := range ds {
		for i := range list {
			if abs, err := filepath.Abs(list[i].path); err == nil {
				list[i].path = abs
			}
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	touched := s.tests.replace(path, name, ds)
	open := map[string]*Snapshot{}
	for _, snap := range s.session.all() {
		if p := FilePath(snap.URI); p != "" {
			open[p] = snap
		}
	}
	s.mu.Lock()
	pull := s.pull
	s.mu.Unlock()
	for _, p := range touched {
		if snap := open[p]; snap != nil {
			if !pull {
				fresh := snap.fresh()
				if s.session.replace(snap, fresh) {
					s.diags.schedule(fresh)
				}
			}
			continue
		}
		uri := fileuri.FromPath(p)
		var wire []wireDiagnostic
		for _, d := range s.tests.at(p) {
			wire = append(wire, s.toWire(&Snapshot{URI: uri, File: d.file}, []syntax.Diagnostic{d.diag})...)
		}
		s.publish(publishDiagnosticsParams{URI: uri, Diagnostics: wire})
	}
	if pull {
		s.refreshDiagnostics()
	}
}
