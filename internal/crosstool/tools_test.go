package crosstool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxql/ctxql/cli"
	"github.com/ctxql/ctxql/config"
	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lsp"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// run runs the ctxql command line in-process.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// materialize writes e (and its configuration) into a new directory and
// returns the file's path.
func materialize(t testing.TB, dir string, e entry) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(e.name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(e.src), 0o644); err != nil {
		t.Fatal(err)
	}
	if e.config != "" {
		if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(e.config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// view is what the language table says about a file.
type view struct {
	lang     *lang.Language
	parsed   *lang.Parsed
	settings lang.Settings
	syntax   []string // "line:col: message" of the syntax errors
	parser   bool     // the parser itself reported an error (the formatter refuses)
}

func viewOf(t testing.TB, path, src string) (view, error) {
	t.Helper()
	cfg, _, err := config.Load(filepath.Dir(path))
	if err != nil {
		return view{}, err
	}
	s := lang.Settings{Config: cfg}
	l := lang.ForName(path)
	if l == nil {
		t.Fatalf("%s: the language table does not know the file", path)
	}
	p := l.Parse(path, src, s.Dialect(path, pact.DialectUnset))
	v := view{lang: l, parsed: p, settings: s}
	for _, d := range p.Diagnostics {
		if d.Severity == syntax.SeverityError && d.Origin == syntax.OriginSyntax {
			v.syntax = append(v.syntax, key(p.File.Position(d.Span.Start), d.Message))
		}
	}
	slices.Sort(v.syntax)
	v.syntax = slices.Compact(v.syntax)
	v.parser = parserErrors(p)
	return v, nil
}

func key(p syntax.Position, msg string) string {
	return fmt.Sprintf("%d:%d: %s", p.Line, p.Column, msg)
}

// finding is one entry of "ctxql check --format json".
type finding struct {
	Line, Column int
	Severity     string
	Code         string
	Message      string
}

// agreeCheck requires "ctxql check" to report every syntax error the table
// reports, no syntax error it does not, and to fail whenever the table
// says the file is invalid.
func agreeCheck(t *testing.T, path string, v view) {
	code, out, errs := run("check", "--format", "json", path)
	if code == 2 {
		t.Fatalf("check: exit 2 (the file's language is not recognised?): %s", errs)
	}
	if v.lang.ID == lang.Host {
		return // the embedded queries are found by the lint driver's configured calls
	}
	var fs []finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	got := map[string]bool{}
	syntaxCodes := 0
	for _, f := range fs {
		if f.Severity != "error" {
			continue
		}
		k := key(syntax.Position{Line: f.Line, Column: f.Column}, f.Message)
		got[k] = true
		if f.Code == lang.SyntaxCode(v.lang.ID) && !slices.Contains(v.syntax, k) {
			t.Errorf("check reports a syntax error the language table does not: %s", k)
		}
		if f.Code == lang.SyntaxCode(v.lang.ID) {
			syntaxCodes++
		}
	}
	for _, k := range v.syntax {
		if !got[k] {
			t.Errorf("check misses the syntax error %s (it reports %v)", k, fs)
		}
	}
	if !v.parsed.Valid() && code != 1 {
		t.Errorf("check exits %d on a file the language table finds invalid: %v", code, v.parsed.Invalid())
	}
}

// agreeFmt requires "ctxql fmt" to refuse exactly the files whose parser
// reports errors, and its output to read back, under the same settings, as
// a file with the same validity and no syntax error. It returns the
// formatted text, or nil when the file was refused.
func agreeFmt(t *testing.T, path string, v view) *string {
	code, out, errs := run("fmt", path)
	if !v.lang.CanFormat() {
		if code != 2 {
			t.Errorf("fmt exits %d on a %s file, which has no formatter", code, v.lang.Name)
		}
		return nil
	}
	if v.parser != (code == 2) {
		t.Fatalf("fmt exits %d; the parser's errors: %v; stderr: %s", code, v.parsed.Diagnostics, errs)
	}
	if code != 0 {
		return nil
	}
	p2 := v.lang.Parse(path, out, v.settings.Dialect(path, pact.DialectUnset))
	if inv := p2.Invalid(); len(inv) > 0 != !v.parsed.Valid() {
		t.Errorf("formatting changes validity: before %v, after %v\n%s", v.parsed.Invalid(), inv, out)
	}
	for _, d := range p2.Diagnostics {
		if d.Origin == syntax.OriginSyntax && d.Severity == syntax.SeverityError {
			t.Errorf("the formatted file has a syntax error: %s\n%s", d.Format(p2.File), out)
		}
	}
	if v.parsed.Dialect != p2.Dialect {
		t.Errorf("formatting changes the dialect from %s to %s", v.parsed.Dialect, p2.Dialect)
	}
	return &out
}

// agreeEval requires the evaluators to refuse what the language table
// finds invalid (and, for PACT, nothing else), and formatting not to change
// an evaluation result.
func agreeEval(t *testing.T, dir, path string, v view, e entry, formatted *string) {
	switch v.lang.ID {
	case lang.PACT:
		agreePACT(t, dir, v, e, formatted)
	case lang.JQL:
		data := writeData(t, dir, e.data, `{"sessions": [], "activities": []}`)
		f := v.parsed.AST.(*jql.File)
		if len(f.Queries) != 1 || v.parser && len(f.Queries) == 0 {
			return // eval takes exactly one query; a file of several is a collection
		}
		code, out, errs := run("eval", "jql", "--data", data, "--query-file", path)
		if valid := v.parsed.Valid(); valid != (code == 0) && !dataError(errs) {
			t.Fatalf("eval jql exits %d, the language table says valid=%v (%v): %s", code, valid, v.parsed.Invalid(), errs)
		}
		if code == 0 && formatted != nil {
			fp := filepath.Join(filepath.Dir(path), "formatted-"+filepath.Base(path))
			writeFile(t, fp, *formatted)
			code2, out2, errs2 := run("eval", "jql", "--data", data, "--query-file", fp)
			if code2 != 0 || out2 != out {
				t.Errorf("formatting changes the result: exit %d %s%s\nbefore: %s\nafter: %s", code2, out2, errs2, out, out2)
			}
		}
	case lang.Datalog:
		data := writeData(t, dir, e.data, `{"relations": {}}`)
		code, out, errs := run("eval", "datalog", "--data", data, "--rules", path)
		if !v.parsed.Valid() && code != 1 {
			t.Fatalf("eval datalog exits %d on a program the language table finds invalid: %v", code, v.parsed.Invalid())
		}
		if code == 2 {
			t.Fatalf("eval datalog: %s", errs)
		}
		if code == 0 && formatted != nil {
			fp := filepath.Join(filepath.Dir(path), "formatted-"+filepath.Base(path))
			writeFile(t, fp, *formatted)
			code2, out2, errs2 := run("eval", "datalog", "--data", data, "--rules", fp)
			if code2 != 0 || out2 != out {
				t.Errorf("formatting changes the result: exit %d %s\nbefore: %s\nafter: %s", code2, errs2, out, out2)
			}
		}
	}
}

// agreeMigrate requires "ctxql migrate --to v2" to refuse exactly the
// PACT files with parser errors and its output to obey migrationAgrees.
func agreeMigrate(t *testing.T, dir, path string, v view, e entry) {
	if v.lang.ID != lang.PACT {
		return
	}
	code, out, errs := run("migrate", "--to", "v2", path)
	if (code == 2) != v.parser {
		t.Fatalf("migrate exits %d; the parser's errors: %v; stderr: %s", code, v.parsed.Diagnostics, errs)
	}
	if code == 2 {
		return
	}
	d, _ := evpact.LoadFile(writeData(t, dir, e.data, string(must(os.ReadFile(filepath.Join("..", "..", "testdata", "pact", "history.json"))))))
	if err := migrationAgrees(path, v.parsed.File.Text(), v.settings, d); err != nil {
		t.Error(err)
	}
	m, _ := v.lang.Migrate(path, []byte(v.parsed.File.Text()), lang.MigrateOptions{From: v.settings.Dialect(path, pact.DialectUnset), To: lang.V2})
	if m != nil && string(m.Output) != out {
		t.Errorf("ctxql migrate prints %q, the table migrates to %q", out, m.Output)
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeData(t testing.TB, dir, data, def string) string {
	if data == "" {
		data = def
	}
	p := filepath.Join(dir, "sample-data.json")
	writeFile(t, p, data)
	return p
}

// agreePACT evaluates every query line of a PACT file with "ctxql eval
// pact" in the file's resolved dialect: it must fail exactly on the lines
// the language table finds invalid. Each query of the formatted file must
// evaluate as its original does.
func agreePACT(t *testing.T, dir string, v view, e entry, formatted *string) {
	pf := v.parsed.AST.(*pact.File)
	data := writeData(t, dir, e.data, string(must(os.ReadFile(filepath.Join("..", "..", "testdata", "pact", "history.json")))))
	invalid := v.parsed.Invalid()
	for _, q := range pf.Queries {
		text := pf.Src.Slice(q.Sp)
		bad := slices.ContainsFunc(invalid, func(d syntax.Diagnostic) bool {
			return pf.Src.LineOf(d.Span.Start) == pf.Src.LineOf(q.Sp.Start)
		})
		// "--" ends the flags: a query may start with "-".
		code, _, errs := run("eval", "pact", "--dialect", pf.Dialect.String(), "--data", data, "--", text)
		if code == 2 {
			if strings.Contains(errs, "--data") || strings.Contains(errs, "data") && !bad {
				return // the sample data does not suit this query's archive
			}
		}
		if bad != (code == 1) && !(code == 1 && dataError(errs)) {
			t.Errorf("eval pact --dialect %s %q exits %d (%s); the language table's errors on its line: %v",
				pf.Dialect, text, code, strings.TrimSpace(errs), invalid)
		}
	}
	if formatted == nil {
		return
	}
	d, err := evpact.LoadFile(data)
	if err != nil {
		return
	}
	g := pact.ParseFile("", *formatted, v.settings.Dialect(pf.Src.Name(), pact.DialectUnset))
	if len(g.Queries) != len(pf.Queries) {
		t.Fatalf("formatting changes the number of queries from %d to %d", len(pf.Queries), len(g.Queries))
	}
	for i, q := range pf.Queries {
		before := outcome(d, q, pf.Src.Slice(q.Sp))
		after := outcome(d, g.Queries[i], g.Src.Slice(g.Queries[i].Sp))
		if before != after {
			t.Errorf("formatting %q as %q changes its result under %s:\nbefore: %s\nafter:  %s",
				pf.Src.Slice(q.Sp), g.Src.Slice(g.Queries[i].Sp), pf.Dialect, before, after)
		}
	}
}

// dataError reports whether an evaluator's message is about the sample
// data rather than the query: a snapshot or a cursor document the data
// does not have. Such errors are not the language table's to predict.
func dataError(msg string) bool {
	for _, s := range []string{"does not exist: the data has", "no snapshot with cycle", "InvalidCursor:"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// outcome is a query's result on d, or its error, as text.
func outcome(d *evpact.Data, q *pact.Query, src string) string {
	if q.Bad {
		return "syntax error"
	}
	plan, err := evpact.Compile(q, src)
	if err != nil {
		return "invalid: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := plan.Eval(ctx, d, evpact.Options{})
	if err != nil {
		return "error: " + err.Error()
	}
	if r.Range != nil {
		r.Range.Query = "" // the query's text, echoed
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// lspClient is a minimal language client over a pipe to an in-process
// server.
type lspClient struct {
	conn jsonrpc2.Conn
	ctx  context.Context
}

func startLSP(t testing.TB) *lspClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// A loopback socket, not net.Pipe: both ends may write at once (a
	// response and a server request), which an unbuffered pipe deadlocks.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- lsp.Serve(ctx, a, lsp.Options{}) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) {
		return nil, nil // workspace/configuration and the like: no settings
	})
	c := &lspClient{conn: conn, ctx: ctx}
	var res json.RawMessage
	ictx, icancel := context.WithTimeout(ctx, 20*time.Second)
	defer icancel()
	if _, err := conn.Call(ictx, "initialize", map[string]any{
		"processId": nil, "rootUri": nil,
		"capabilities": map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{}}},
	}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := conn.Notify(ictx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var null json.RawMessage
		sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
		defer scancel()
		if _, err := conn.Call(sctx, "shutdown", nil, &null); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		_ = conn.Notify(sctx, "exit", nil)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		cancel()
		conn.Close()
	})
	return c
}

type wireDiag struct {
	Range struct {
		Start struct {
			Line      int `json:"line"`
			Character int `json:"character"`
		} `json:"start"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Code     any    `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

// diagnostics opens the file, pulls its diagnostics and closes it.
// The document is also formatted: the result must be *want, and the server
// must decline when want is nil (fmt refuses the file).
func (c *lspClient) diagnostics(t *testing.T, path, text string, id lang.ID, want *string) []wireDiag {
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	if err := c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": string(id), "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	defer c.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	got, ok := c.formatted(t, ctx, uri, syntax.NewFile(path, text))
	switch {
	case ok != (want != nil):
		t.Errorf("the server formats: %v; fmt formats: %v", ok, want != nil)
	case ok && got != *want:
		t.Errorf("the server's formatting differs from fmt:\nserver: %q\nfmt:    %q", got, *want)
	}
	var rep struct {
		Kind  string     `json:"kind"`
		Items []wireDiag `json:"items"`
	}
	if _, err := c.conn.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}}, &rep); err != nil {
		t.Fatalf("textDocument/diagnostic: %v", err)
	}
	return rep.Items
}

// formatted asks the server to format the open document and returns the
// text its edits give, or ok false when it declines.
func (c *lspClient) formatted(t *testing.T, ctx context.Context, uri string, f *syntax.File) (string, bool) {
	var edits []struct {
		Range struct {
			Start lspPos `json:"start"`
			End   lspPos `json:"end"`
		} `json:"range"`
		NewText string `json:"newText"`
	}
	_, err := c.conn.Call(ctx, "textDocument/formatting", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"options":      map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
	if err != nil {
		return "", false
	}
	var es []syntax.TextEdit
	for _, e := range edits {
		es = append(es, syntax.TextEdit{Span: syntax.Sp(f.OffsetUTF16(e.Range.Start.utf16()), f.OffsetUTF16(e.Range.End.utf16())), NewText: e.NewText})
	}
	out, err := syntax.ApplyEdits(f.Text(), es)
	if err != nil {
		t.Fatalf("the server's formatting edits do not apply: %v", err)
	}
	return out, true
}

type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func (p lspPos) utf16() syntax.UTF16Pos { return syntax.UTF16Pos{Line: p.Line, Character: p.Character} }

// agreeLSP requires the language server to report the table's syntax
// errors of the document, and no other syntax error.
func agreeLSP(t *testing.T, c *lspClient, path string, v view, formatted *string) {
	items := c.diagnostics(t, path, v.parsed.File.Text(), v.lang.ID, formatted)
	f := v.parsed.File
	got := map[string]bool{}
	for _, it := range items {
		if it.Source != string(v.lang.ID) {
			t.Errorf("the language server serves the file as %q, the table says %q", it.Source, v.lang.ID)
		}
		if it.Severity != 1 {
			continue
		}
		off := f.OffsetUTF16(syntax.UTF16Pos{Line: it.Range.Start.Line, Character: it.Range.Start.Character})
		k := key(f.Position(off), it.Message)
		got[k] = true
		if fmt.Sprint(it.Code) == lang.SyntaxCode(v.lang.ID) && !slices.Contains(v.syntax, k) {
			t.Errorf("the language server reports a syntax error the language table does not: %s", k)
		}
	}
	for _, k := range v.syntax {
		if !got[k] {
			t.Errorf("the language server misses the syntax error %s (it reports %v)", k, items)
		}
	}
	if !v.parsed.Valid() && !slices.ContainsFunc(items, func(w wireDiag) bool { return w.Severity == 1 }) {
		t.Errorf("the language server shows no error on a file the language table finds invalid: %v", v.parsed.Invalid())
	}
}

// TestToolsAgree runs check, fmt, eval and the language server on every
// query file under testdata/ (archive members named like query files and
// the query sections of the evaluator, formatter, parser and
// language-server archives, with their configuration and sample data).
func TestToolsAgree(t *testing.T) {
	es := append(corpus(t), repros...)
	count := map[lang.ID]int{}
	for _, e := range es {
		count[lang.ForName(e.name).ID]++
	}
	t.Logf("corpus: %d files %v", len(es), count)
	if count[lang.PACT] < 100 || count[lang.JQL] < 20 || count[lang.Datalog] < 40 {
		t.Fatalf("the corpus is too small: %v", count)
	}
	c := startLSP(t)
	for _, e := range es {
		t.Run(e.origin, func(t *testing.T) {
			dir := t.TempDir()
			path := materialize(t, dir, e)
			v, err := viewOf(t, path, e.src)
			if err != nil {
				if code, _, _ := run("check", path); code != 2 {
					t.Errorf("the configuration is invalid (%v) but check exits %d", err, code)
				}
				return
			}
			agreeCheck(t, path, v)
			agreeMigrate(t, dir, path, v, e)
			formatted := agreeFmt(t, path, v)
			agreeEval(t, dir, path, v, e, formatted)
			if slices.Contains(lang.Queries(), v.lang) {
				agreeLSP(t, c, path, v, formatted)
			}
		})
	}
}
