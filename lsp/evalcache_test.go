package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// writeTree writes a PACT sample data file of turns turns under ^seq, each
// an mt holding four cb nodes with the roles user and assistant and ttl 0
// to 3, and returns its path.
func writeTree(t testing.TB, dir, name string, turns int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"seq","nodeType":"^seq","children":[`)
	for i := range turns {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"mt%d","nodeType":"mt","children":[`, i)
		for k := range 4 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"cb%d.%d","nodeType":"cb","role":"%s","ttl":%d}`, i, k, []string{"user", "assistant"}[k%2], k)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}]}}`)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sixteenQueries is a v1 PACT file over ./tree.json: eight queries that
// match nothing (each a DATA001 finding) and eight that match.
func sixteenQueries() string {
	var b strings.Builder
	b.WriteString("// pact: v1\n// data: ./tree.json\n")
	for i := range 8 {
		fmt.Fprintf(&b, "^seq .mt > .cb[role='nobody%d']\n", i)
	}
	for i := range 8 {
		fmt.Fprintf(&b, "^seq .mt > .cb[ttl<=%d][role='user']\n", i%3)
	}
	return b.String()
}

// countCode counts the diagnostics with code.
func countCode(ds []wireDiagnostic, code string) int {
	n := 0
	for _, d := range ds {
		if d.Code == code {
			n++
		}
	}
	return n
}

// TestKeystrokeEvaluatesOneQuery checks that the evaluations behind the
// data findings are cached across document versions: after a keystroke in
// one query of a 16-query file, only that query is evaluated again.
func TestKeystrokeEvaluatesOneQuery(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, "tree.json", 50)
	c, srv := newClientServer(t, Options{})
	c.initialize()
	uri := fileURIOf(dir, "q.pact")
	c.open(uri, sixteenQueries())
	ds := c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return countCode(ds, CodeNoMatch) == 8 })
	if n := countCode(ds, CodeNoMatch); n != 8 {
		t.Fatalf("%d DATA001 findings, want 8", n)
	}
	runs := srv.ws.evals.runs.Load()
	// Query 12 (line 14): "<=1" becomes "<=5", still matching, a text no
	// query had.
	line := 14
	c.send("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": Range{Start: Position{Line: line, Character: 20}, End: Position{Line: line, Character: 21}},
			"text": "5"}},
	})
	ds = c.waitDiagnostics(uri, 2)
	if countCode(ds, CodeNoMatch) != 8 {
		ds = c.waitDiagnostics(uri, 2) // the second notification, with the data findings
	}
	if n := countCode(ds, CodeNoMatch); n != 8 {
		t.Fatalf("after the keystroke: %d DATA001 findings, want 8", n)
	}
	if got := srv.ws.evals.runs.Load() - runs; got != 1 {
		t.Errorf("a keystroke in one query ran %d evaluations, want 1", got)
	}
}

// TestPullAnswersBeforeEvaluating checks the pull model: a pull is
// answered with the findings of the text and the data findings evaluated
// so far; the server evaluates the rest, asks the client to refresh, and
// the next pull has them all. After a keystroke, the findings of the
// queries not edited are answered from the cache at once.
func TestPullAnswersBeforeEvaluating(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, "tree.json", 50)
	c, srv := newClientServer(t, Options{})
	c.initializeWith(map[string]any{
		"textDocument": map[string]any{"diagnostic": map[string]any{}},
		"workspace":    map[string]any{"diagnostics": map[string]any{"refreshSupport": true}},
	}, map[string]any{"diagnosticsDelay": 300}) // pulls come before the diagnoser's evaluations
	uri := fileURIOf(dir, "q.pact")
	c.open(uri, sixteenQueries())
	refreshes := func() int { return c.received("workspace/diagnostic/refresh") }
	awaitRefresh := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); refreshes() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no workspace/diagnostic/refresh #%d", n)
			}
		}
	}
	if n := countCode(c.pull(uri), CodeNoMatch); n != 0 {
		t.Fatalf("the first pull waited for the data findings: %d DATA001", n)
	}
	awaitRefresh(1)
	if n := countCode(c.pull(uri), CodeNoMatch); n != 8 {
		t.Fatalf("after the refresh: %d DATA001 findings, want 8", n)
	}
	runs := srv.ws.evals.runs.Load()
	// Query 0 (line 2): 'nobody0' becomes 'user', which matches.
	c.send("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": Range{Start: Position{Line: 2, Character: 21}, End: Position{Line: 2, Character: 28}},
			"text": "user"}},
	})
	got := c.pull(uri)
	if n := countCode(got, CodeNoMatch); n != 7 {
		t.Fatalf("pull after the keystroke: %d DATA001 findings, want the 7 of the queries not edited", n)
	}
	if n := srv.ws.evals.runs.Load() - runs; n != 0 {
		t.Errorf("the pull after the keystroke waited for %d evaluations", n)
	}
	awaitRefresh(2)
	got = c.pull(uri)
	if n := countCode(got, CodeNoMatch); n != 7 {
		t.Fatalf("after the second refresh: %d DATA001 findings, want 7", n)
	}
	for _, d := range got {
		if d.Code == CodeNoMatch && d.Range.Start.Line == 2 {
			t.Fatalf("the edited query was reported as matching nothing: %+v", d)
		}
	}
	if n := srv.ws.evals.runs.Load() - runs; n != 1 {
		t.Errorf("%d evaluations after one keystroke, want 1", n)
	}
}

// TestDataReleased checks that sample data no open document uses is let
// go of beyond the dataCacheBytes bound, least recently used first, and
// that data an open document uses is kept whatever the bound.
func TestDataReleased(t *testing.T) {
	dir := t.TempDir()
	var size int64
	for i := range 5 {
		p := writeTree(t, dir, fmt.Sprintf("d%d.json", i), 20)
		fi, _ := os.Stat(p)
		size = fi.Size()
	}
	for _, c := range []struct {
		name  string
		bound int64 // the setting; 0 keeps no unused data
		kept  int   // data sets left after every document closed
	}{
		{"none", 0, 0},
		{"two", 2 * size, 2},
		{"all", 100 * size, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, srv := newClientServer(t, Options{})
			cl.initializeWith(map[string]any{}, map[string]any{"dataCacheBytes": c.bound})
			var uris []string
			for i := range 5 {
				uri := fileURIOf(dir, fmt.Sprintf("q%d.pact", i))
				uris = append(uris, uri)
				cl.open(uri, fmt.Sprintf("// pact: v1\n// data: ./d%d.json\n.cb[role='nobody']\n", i))
				cl.awaitDiags(uri, func(ds []wireDiagnostic) bool { return countCode(ds, CodeNoMatch) == 1 })
			}
			if got := len(srv.ws.LoadedData()); got != 5 {
				t.Fatalf("%d data sets loaded for 5 open documents", got)
			}
			for i, uri := range uris {
				cl.send("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
				// Every document still open keeps its data.
				deadline := time.Now().Add(5 * time.Second)
				for len(srv.ws.LoadedData()) > max(5-i-1, min(5, c.kept)) && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				for j := i + 1; j < 5; j++ {
					if !slices.Contains(srv.ws.LoadedData(), filepath.Join(dir, fmt.Sprintf("d%d.json", j))) {
						t.Fatalf("d%d.json, used by an open document, was released", j)
					}
				}
			}
			got := srv.ws.LoadedData()
			if len(got) != c.kept {
				t.Fatalf("loaded after closing every document: %v, want %d data sets", got, c.kept)
			}
			// The most recently used stay.
			for j := 5 - c.kept; j < 5; j++ {
				if !slices.Contains(got, filepath.Join(dir, fmt.Sprintf("d%d.json", j))) {
					t.Errorf("d%d.json released before older data: %v", j, got)
				}
			}
			if c.kept == 0 {
				if n := srv.ws.evals.kept(); n != 0 {
					t.Errorf("%d evaluations kept over released data", n)
				}
			}
		})
	}
}

// TestConcurrentDatalogRuns runs Datalog programs over one loaded data set
// at the same time (run with -race): each gets the result it gets alone,
// and nothing serialises them.
func TestConcurrentDatalogRuns(t *testing.T) {
	dir := t.TempDir()
	var tuples []string
	for i := range 200 {
		tuples = append(tuples, fmt.Sprintf(`["n%d","n%d"]`, i, i+1))
	}
	data := `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [` + strings.Join(tuples, ",") + `]}}}`
	if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	programs := map[string]string{}
	want := map[string]int{}
	for i := range 8 {
		// Each program names constants of its own, which an evaluation
		// interns into the database it runs on.
		programs[fmt.Sprintf("p%d.dl", i)] = fmt.Sprintf("// data: ./d.json\npath(x, y) <-- edge(x, y);\npath(x, z) <-- path(x, y), edge(y, z);\nq(y) <-- path(\"n%d\", y), if y != \"const%d\";\n", i*10, i)
		want[fmt.Sprintf("p%d.dl", i)] = 200 - i*10
	}
	c := newClient(t, Options{})
	// 24 runs at once under the race detector take more than the default
	// 2 s run timeout on a loaded machine.
	c.initializeWith(map[string]any{}, map[string]any{"runTimeout": 60000})
	for name, src := range programs {
		c.open(fileURIOf(dir, name), src)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for round := range 3 {
		for name := range programs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var res previewParams
				uri := fileURIOf(dir, name)
				if err := c.call("workspace/executeCommand", map[string]any{"command": CommandRun,
					"arguments": []any{uri, Range{Start: Position{Line: 3}, End: Position{Line: 3}}}}, &res); err != nil {
					errs <- err.Error()
					return
				}
				if res.Error != "" || res.Count != want[name] {
					errs <- fmt.Sprintf("round %d %s: %d tuples (error %q), want %d", round, name, res.Count, res.Error, want[name])
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestCancelStopsEvaluation checks that $/cancelRequest stops the
// evaluation of the cancelled request at once: the answer is
// RequestCancelled and no evaluation is left running, although the run
// timeout is a minute.
func TestCancelStopsEvaluation(t *testing.T) {
	dir := t.TempDir()
	writeSlowDatalog(t, dir)
	c, srv := newClientServer(t, Options{})
	c.initializeWith(map[string]any{}, map[string]any{"runTimeout": 60000})
	uri := fileURIOf(dir, "slow.dl")
	c.open(uri, slowProgram)
	done := make(chan error, 1)
	go func() {
		// The second call of the connection: id 2.
		_, err := c.conn.Call(context.Background(), "workspace/executeCommand", map[string]any{"command": CommandRun,
			"arguments": []any{uri, Range{Start: Position{Line: 1}, End: Position{Line: 1}}}}, nil)
		done <- err
	}()
	// Wait until the evaluation runs.
	for deadline := time.Now().Add(10 * time.Second); srv.ws.evals.active.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the evaluation never started")
		}
	}
	time.Sleep(100 * time.Millisecond)
	// Closing the document stops the diagnoser's work on it; the
	// request's stops with $/cancelRequest.
	c.send("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	start := time.Now()
	c.send("$/cancelRequest", map[string]any{"id": 2})
	select {
	case err := <-done:
		var je *jsonrpc2.Error
		if !errors.As(err, &je) || je.Code != codeRequestCancelled {
			t.Errorf("cancelled request answered with %v, want RequestCancelled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no answer 2 s after $/cancelRequest")
	}
	for srv.ws.evals.active.Load() > 0 {
		if time.Since(start) > 2*time.Second {
			t.Fatalf("an evaluation still runs %v after the cancellation", time.Since(start))
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("evaluation stopped %v after the cancellation", time.Since(start))
}

// slowProgram is a Datalog program that runs for minutes over the data of
// writeSlowDatalog (a three-way join of 2,000 values), checking for
// cancellation as it goes.
const slowProgram = "// data: ./slow.json\nq(a) <-- n(a), n(b), n(c), if a != b, if b != c, if a == c;\n"

func writeSlowDatalog(t testing.TB, dir string) {
	t.Helper()
	var vals []string
	for i := range 2000 {
		vals = append(vals, fmt.Sprintf(`["%d"]`, i))
	}
	data := `{"relations": {"n": {"param_types": ["Node"], "tuples": [` + strings.Join(vals, ",") + `]}}}`
	if err := os.WriteFile(filepath.Join(dir, "slow.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fileURIOf is the file URI of name in dir.
func fileURIOf(dir, name string) string {
	return "file://" + filepath.ToSlash(filepath.Join(dir, name))
}

// TestEvalCacheAbandoned checks that an evaluation that panics or is
// cancelled leaves nothing behind: the next request for it evaluates it,
// instead of waiting for an evaluation that will never finish or taking
// a result cut short.
func TestEvalCacheAbandoned(t *testing.T) {
	var (
		stats evalCaches
		c     evalCache[evalKey, string]
	)
	key := evalKey{kind: "test", text: "q"}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the evaluation's panic was swallowed")
			}
		}()
		c.get(context.Background(), &stats, key, func(context.Context) (string, bool) { panic("boom") })
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.get(ctx, &stats, key, func(context.Context) (string, bool) { return "cut short", true }); err == nil {
		t.Error("an evaluation under a cancelled context returned no error")
	}
	done := make(chan string, 1)
	go func() {
		v, _ := c.get(context.Background(), &stats, key, func(context.Context) (string, bool) { return "whole", true })
		done <- v
	}()
	select {
	case v := <-done:
		if v != "whole" {
			t.Errorf("got %v, want the evaluation's own result", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request waits for an abandoned evaluation")
	}
	if got := stats.runs.Load(); got != 3 {
		t.Errorf("%d evaluations, want 3", got)
	}
	cached, missed := cachedOnly(context.Background())
	if v, err := c.get(cached, &stats, key, nil); err != nil || v != "whole" || missed.Load() {
		t.Errorf("from the cache: %v, %v (missed %v)", v, err, missed.Load())
	}
}

// TestDataReleasedWhenIdle checks that sample data no open document uses
// is released after the dataReleaseDelay setting although the
// dataCacheBytes bound would keep it, with the evaluations over it, and
// that data an open document uses stays however long it is idle.
func TestDataReleasedWhenIdle(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		writeTree(t, dir, fmt.Sprintf("d%d.json", i), 20)
	}
	const delay = 3 * time.Second
	cl, srv := newClientServer(t, Options{})
	cl.initializeWith(map[string]any{}, map[string]any{"dataReleaseDelay": delay.Milliseconds()})
	var uris []string
	for i := range 3 {
		uri := fileURIOf(dir, fmt.Sprintf("q%d.pact", i))
		uris = append(uris, uri)
		cl.open(uri, fmt.Sprintf("// pact: v1\n// data: ./d%d.json\n.cb[role='nobody']\n", i))
		cl.awaitDiags(uri, func(ds []wireDiagnostic) bool { return countCode(ds, CodeNoMatch) == 1 })
	}
	data := func(i int) string { return filepath.Join(dir, fmt.Sprintf("d%d.json", i)) }
	closed := time.Now()
	for _, uri := range uris[:2] {
		cl.send("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	cl.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uris[2]}}, nil)
	if got := srv.ws.LoadedData(); len(got) != 3 && time.Since(closed) < delay {
		t.Fatalf("loaded right after two documents closed: %v, want the 3 data sets (the bound keeps them)", got)
	}
	evals := srv.ws.evals.kept()
	deadline := time.Now().Add(delay + 10*time.Second)
	for len(srv.ws.LoadedData()) > 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := srv.ws.LoadedData()
	if !slices.Equal(got, []string{data(2)}) {
		t.Fatalf("loaded %v after the delay, want only %s (of the open document)", got, data(2))
	}
	if idle := time.Since(closed); idle < delay {
		t.Errorf("released %v after the close, before the %v delay", idle, delay)
	}
	if n := srv.ws.evals.kept(); n >= evals {
		t.Errorf("%d evaluations kept after the release, %d before", n, evals)
	}
	// The open document's data stays past another delay.
	time.Sleep(delay + 500*time.Millisecond)
	if got := srv.ws.LoadedData(); !slices.Equal(got, []string{data(2)}) {
		t.Errorf("loaded %v with one document open and idle, want %s", got, data(2))
	}
}
