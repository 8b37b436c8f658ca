package crosstool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/gittest"
	"github.com/ctxql/ctxql/lang"
	mcpserver "github.com/ctxql/ctxql/mcp"
	"github.com/ctxql/ctxql/resultdiff"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// placed is one corpus file written into the shared project for the MCP
// server and ctxql diff: its directory relative to the project, its
// path, the table's view of it and its sample data.
type placed struct {
	e    entry
	rel  string // the file, relative to the project
	path string
	data string // the sample data, relative to the project
	v    view
	diff bool // ctxql diff evaluates it (no data pragma or data setting of its own)
}

// defaultData is the sample data of a language's files that bring none.
func defaultData(id lang.ID) string {
	switch id {
	case lang.PACT:
		return string(must(os.ReadFile(filepath.Join("..", "..", "testdata", "pact", "history.json"))))
	case lang.JQL:
		return `{"sessions": [], "activities": []}`
	}
	return `{"relations": {}}`
}

// git runs git in dir with a fixed identity.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	gittest.Run(t, dir, args...)
}

// TestDoorsAgree evaluates every query file of the corpus through each
// front door: "ctxql eval", the MCP server's tools (in-process) and
// "ctxql diff" (a work tree whose base has none of the files, so every
// query is new with all its results). They must agree with the language
// table on which queries are invalid, report the same errors (origin and
// code) as the table, and give the same results.
func TestDoorsAgree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	git(t, root, "init", "-q")
	git(t, root, "commit", "-q", "--allow-empty", "-m", "base")
	var ps []*placed
	for i, e := range append(corpus(t), repros...) {
		if p := place(t, root, fmt.Sprintf("e%04d", i), e); p != nil {
			ps = append(ps, p)
		}
	}
	rep, err := resultdiff.Run(context.Background(), resultdiff.Options{Dir: root})
	if err != nil {
		t.Fatalf("diff: %v", err)
	}
	changes := map[string][]resultdiff.Change{}
	for _, c := range rep.Changes {
		changes[c.Path] = append(changes[c.Path], c)
	}
	// The doors are compared on results, not on time budgets: the MCP
	// server's deadline is raised far over the default, which a large
	// program can reach on a loaded machine while ctxql eval, without
	// one, goes on.
	srv := mcpserver.New(&acp.Index{Root: root}, mcpserver.Options{Budget: mcpserver.Budget{Timeout: 10 * time.Minute}})
	compared := map[string]int{}
	for _, p := range ps {
		t.Run(p.e.origin, func(t *testing.T) {
			doors(t, srv, root, p, changes, compared)
		})
	}
	t.Logf("compared: %v", compared)
	for _, k := range []string{"pact mcp", "pact diff", "jql mcp", "jql diff", "datalog mcp", "datalog diff"} {
		if compared[k] < 10 {
			t.Errorf("only %d comparisons of %s: %v", compared[k], k, compared)
		}
	}
}

// place writes the corpus entry e into the directory dir of the project
// root with its sample data and, when it names none of its own, a data
// setting, so that the MCP server and ctxql diff evaluate it on that data.
// It returns nil for a file of no query language or an invalid
// configuration (TestToolsAgree covers those).
func place(t testing.TB, root, dir string, e entry) *placed {
	t.Helper()
	l := lang.ForName(e.name)
	if !slices.Contains(lang.Queries(), l) {
		return nil
	}
	p := &placed{e: e, rel: dir + "/" + e.name, data: dir + "/sample-data.json"}
	p.path = materialize(t, filepath.Join(root, dir), e)
	data := e.data
	if data == "" {
		data = defaultData(l.ID)
	}
	writeFile(t, filepath.Join(root, filepath.FromSlash(p.data)), data)
	v, err := viewOf(t, p.path, e.src)
	if err != nil {
		return nil
	}
	p.v = v
	_, hasPragma := v.parsed.DataPragma()
	p.diff = !hasPragma && !strings.Contains(e.config, "data")
	if p.diff {
		cfg := e.config + "data:\n  \"/" + e.name + "\": sample-data.json\n"
		writeFile(t, filepath.Join(root, dir, ".ctxql.yaml"), cfg)
		// The configuration must stay valid, as the table read it.
		if _, err := viewOf(t, p.path, e.src); err != nil {
			t.Fatalf("%s: the data setting makes the configuration invalid: %v", e.origin, err)
		}
	}
	return p
}

// doors compares the MCP server's and ctxql diff's view of the placed
// file with the table's.
func doors(t *testing.T, srv *mcpserver.Server, root string, p *placed, changes map[string][]resultdiff.Change, compared map[string]int) {
	var cs []resultdiff.Change
	if p.diff {
		cs = changes[p.rel]
	}
	switch p.v.lang.ID {
	case lang.PACT:
		doorsPACT(t, srv, root, p, cs, compared)
	case lang.JQL:
		doorsJQL(t, srv, root, p, cs, compared)
	case lang.Datalog:
		doorsDatalog(t, srv, root, p, cs, compared)
	}
}

// mcpOutcome calls a tool handler and returns its diagnostics' errors as
// "origin code message", and its results as normalised JSON.
func mcpOutcome(t *testing.T, res any, err error) (errs []string, results string, ok bool) {
	t.Helper()
	if err != nil {
		return nil, err.Error(), false
	}
	lr, isLang := res.(mcpserver.LangResult)
	if !isLang {
		t.Fatalf("unexpected tool result %T", res)
	}
	for _, d := range lr.Diagnostics {
		if d.Severity == "error" {
			errs = append(errs, d.Origin+" "+d.Code+" "+d.Message)
		}
	}
	return errs, normal(t, string(must(json.Marshal(lr.Results)))), true
}

// normal re-encodes a JSON text compactly, or returns it as it is.
func normal(t *testing.T, s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return strings.TrimSpace(s)
	}
	return string(must(json.Marshal(v)))
}

// tableErrors are the table's errors within span as "origin code message".
func tableErrors(v view, span func(syntax.Diagnostic) bool) []string {
	var out []string
	for _, d := range v.parsed.Invalid() {
		if span(d) {
			out = append(out, string(d.Origin)+" "+d.Code+" "+d.Message)
		}
	}
	return out
}

// sameErrors compares error lists as sets.
func sameErrors(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// changeFor returns the diff's change of the query with text key.
func changeFor(cs []resultdiff.Change, key string) (resultdiff.Change, bool) {
	for _, c := range cs {
		if strings.TrimSpace(c.Query) == key {
			return c, true
		}
	}
	return resultdiff.Change{}, false
}

func doorsPACT(t *testing.T, srv *mcpserver.Server, root string, p *placed, cs []resultdiff.Change, compared map[string]int) {
	pf := p.v.parsed.AST.(*pact.File)
	data := filepath.Join(root, filepath.FromSlash(p.data))
	for _, q := range pf.Queries {
		text := pf.Src.Slice(q.Sp)
		line := pf.Src.LineOf(q.Sp.Start)
		want := tableErrors(p.v, func(d syntax.Diagnostic) bool { return pf.Src.LineOf(d.Span.Start) == line })
		code, out, errs := run("eval", "pact", "--dialect", pf.Dialect.String(), "--data", data, "--", text)
		if code == 2 || dataError(errs) {
			continue // the sample data does not suit this query
		}
		res, err := srv.PACT(context.Background(), mcpserver.PactArgs{Query: text, Data: p.data, Dialect: pf.Dialect.String()})
		merrs, mres, ok := mcpOutcome(t, res, err)
		if !ok {
			t.Errorf("MCP pact_select %q: %s", text, mres)
			continue
		}
		if (code == 1) != (len(want) > 0) || !sameErrors(merrs, want) {
			t.Errorf("%q: eval exits %d; MCP errors %v; the table's %v", text, code, merrs, want)
			continue
		}
		if code == 0 && normal(t, out) != mres {
			t.Errorf("%q: eval gives %s, MCP %s", text, normal(t, out), mres)
		}
		compared["pact mcp"]++
		if !p.diff {
			continue
		}
		compared["pact diff"]++
		c, found := changeFor(cs, strings.TrimSpace(text))
		switch {
		case !found:
			t.Errorf("%q: diff has no result", text)
		case (c.Error != "") != (code != 0):
			t.Errorf("%q: diff error %q, eval exit %d", text, c.Error, code)
		case code == 0 && diffResult(t, c) != normalIDs(t, mres):
			t.Errorf("%q: diff gives %v, MCP %s", text, c.Added, mres)
		}
	}
}

// diffResult is the results diff lists for a new PACT query as MCP gives
// them: a snapshot range's object, or the sorted ids.
func diffResult(t *testing.T, c resultdiff.Change) string {
	if len(c.Added) == 1 && strings.HasPrefix(c.Added[0], "{") {
		return normal(t, c.Added[0])
	}
	return normalIDs(t, "["+strings.Join(quoted(c.Added), ",")+"]")
}

// quoted returns the ids as JSON strings.
func quoted(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(must(json.Marshal(id)))
	}
	return out
}

// normalIDs sorts a JSON array of ids (diff lists each result once, in
// order of its own); other JSON is returned as it is, compact.
func normalIDs(t *testing.T, s string) string {
	var ids []string
	if err := json.Unmarshal([]byte(s), &ids); err != nil {
		return s
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return "[" + strings.Join(quoted(ids), ",") + "]"
}

func doorsJQL(t *testing.T, srv *mcpserver.Server, root string, p *placed, cs []resultdiff.Change, compared map[string]int) {
	queries := p.v.parsed.Queries()
	if len(queries) != 1 {
		return // eval takes exactly one query
	}
	want := tableErrors(p.v, func(syntax.Diagnostic) bool { return true })
	code, out, errs := run("eval", "jql", "--data", filepath.Join(root, filepath.FromSlash(p.data)), "--query-file", p.path)
	if code == 2 || dataError(errs) {
		return
	}
	if (code == 1) != (len(want) > 0) {
		t.Fatalf("eval jql exits %d; the table's errors %v: %s", code, want, errs)
	}
	res, err := srv.JQL(context.Background(), mcpserver.LangArgs{Query: queries[0].Text, Data: p.data})
	merrs, mres, ok := mcpOutcome(t, res, err)
	if !ok {
		t.Fatalf("MCP jql_query: %s", mres)
	}
	if !sameErrors(merrs, want) {
		t.Errorf("MCP errors %v; the table's %v", merrs, want)
	}
	if code == 0 && normal(t, out) != mres {
		t.Errorf("eval gives %s, MCP %s", normal(t, out), mres)
	}
	compared["jql mcp"]++
	if !p.diff {
		return
	}
	compared["jql diff"]++
	c, found := changeFor(cs, queries[0].Key)
	if !found || (c.Error != "") != (code != 0) {
		t.Errorf("diff: %+v (found %v), eval exit %d", c, found, code)
	}
	if found && code == 0 && c.Count != len(must(decodeArray(mres))) {
		t.Errorf("diff counts %d documents, MCP %s", c.Count, mres)
	}
}

func decodeArray(s string) ([]any, error) {
	var a []any
	err := json.Unmarshal([]byte(s), &a)
	return a, err
}

func doorsDatalog(t *testing.T, srv *mcpserver.Server, root string, p *placed, cs []resultdiff.Change, compared map[string]int) {
	want := tableErrors(p.v, func(syntax.Diagnostic) bool { return true })
	code, out, errs := run("eval", "datalog", "--data", filepath.Join(root, filepath.FromSlash(p.data)), "--rules", p.path)
	if code == 2 {
		return // the sample data does not load
	}
	res, err := srv.Datalog(context.Background(), mcpserver.DatalogArgs{Query: p.e.src, Data: p.data, Program: true})
	merrs, mres, ok := mcpOutcome(t, res, err)
	if !ok {
		if code == 1 && strings.Contains(mres, "evaluation stopped") {
			return // a budget both doors enforce
		}
		t.Fatalf("MCP datalog_query: %s (eval exits %d: %s)", mres, code, errs)
	}
	// The program is checked against the data's schema: relations only
	// the data could define are known or unknown by it, which the table's
	// check without data leaves open.
	if len(want) > 0 && (code != 1 || len(merrs) == 0) {
		t.Fatalf("eval exits %d, MCP errors %v; the table's errors %v", code, merrs, want)
	}
	if (code == 1) != (len(merrs) > 0) && !strings.Contains(errs, "evaluation stopped") {
		t.Fatalf("eval exits %d (%s); MCP errors %v", code, errs, merrs)
	}
	if code == 0 && normal(t, out) != mres {
		t.Errorf("eval gives %s, MCP %s", normal(t, out), mres)
	}
	compared["datalog mcp"]++
	if !p.diff || code != 0 {
		return
	}
	compared["datalog diff"]++
	var rels map[string][][]string
	json.Unmarshal([]byte(mres), &rels)
	for _, c := range cs {
		if c.Error != "" {
			t.Errorf("diff: %s: %s", c.Query, c.Error)
			continue
		}
		if n := len(rels[c.Query]); c.Count != n {
			t.Errorf("diff counts %d tuples of %s, MCP %d", c.Count, c.Query, n)
		}
	}
}
