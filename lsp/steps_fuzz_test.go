package lsp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// stepsFixture writes sample data for PACT and JQL documents into a
// temporary directory and returns it with a workspace reading it.
func stepsFixture(t testing.TB) (string, *workspace) {
	dir := t.TempDir()
	files := map[string]string{
		"pact.json": `{"root":{"id":"root","nodeType":"^root","children":[
  {"id":"sys","nodeType":"^sys","children":[{"id":"cb:s","nodeType":"cb","role":"system","ttl":9}]},
  {"id":"seq","nodeType":"^seq","children":[
    {"id":"mt:1","nodeType":"mt","children":[{"id":"mc:1","nodeType":"mc","children":[
      {"id":"cb:u1","nodeType":"cb","role":"user","ttl":1},{"id":"cb:a1","nodeType":"cb","role":"assistant","ttl":0}]}]},
    {"id":"mt:2","nodeType":"mt","children":[{"id":"mc:2","nodeType":"mc","children":[
      {"id":"cb:u2","nodeType":"cb","role":"user","ttl":2}]}]}]}]}}`,
		"jql.json": `[{"id":"a1","sessionId":"s-1","type":"planGenerated","createTime":"2024-01-01T00:00:00Z","artifacts":[{"exitCode":2}]},
 {"id":"a2","sessionId":"s-1","type":"agentMessaged","createTime":"2024-01-02T00:00:00Z","message":"hi"},
 {"id":"a3","sessionId":"s-2","type":"planGenerated","createTime":"2024-01-03T00:00:00Z","artifacts":[{"exitCode":0},{"exitCode":3}]}]`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, newWorkspace(func() Config { return Config{} })
}

// FuzzStepHints evaluates generated PACT and JQL documents step by step
// over sample data and checks what the editor would show: hints inside
// the document, an emptied step that counts 0 after steps that do not,
// JQL counts that only shrink, and step counts that agree with the run's
// result count.
func FuzzStepHints(f *testing.F) {
	for _, s := range []string{
		"^seq .mt .cb[role='user']", ".cb[role='nobody'][ttl<=1]", ".mt > .cb[role='assistant']", "@* .cb", ".cb @limit 1",
		"from: activities\nwhere:\n  sessionId: s-1\n  artifacts.exitCode: {gt: 1, lt: 3}\n",
		"{from: 'activities', where: {type: 'planGenerated'}, startAfter: 'a3', order: 'asc', limit: 1}",
		"from: sessions\n", "from: activities\nwhere: {nope: 1}\n",
	} {
		f.Add(s)
	}
	dir, ws := stepsFixture(f)
	f.Fuzz(func(t *testing.T, q string) {
		for _, doc := range []struct {
			name, data string
			lang       Language
		}{{"q.pact", "// data: ./pact.json\n", pactLanguage{}}, {"q.jql.yaml", "# data: ./jql.json\n", jqlLanguage{}}} {
			uri := "file://" + filepath.ToSlash(dir) + "/" + doc.name
			text := doc.data + q
			s := &Snapshot{URI: uri, File: syntax.NewFile(uri, text), Lang: doc.lang, Workspace: ws, Edited: -1}
			ctx := context.Background()
			ih := doc.lang.(InlayHinter)
			for _, h := range ih.InlayHints(ctx, s, syntax.Sp(0, len(text))) {
				if h.Offset < 0 || h.Offset > len(text) || h.Label == "" {
					t.Fatalf("%s: hint %+v outside the document of %d bytes", doc.name, h, len(text))
				}
			}
			trace := pactTrace
			if doc.name != "q.pact" {
				trace = jqlTrace
			}
			for _, sp := range doc.lang.(Querier).Queries(s) {
				tr := trace(ctx, s, sp.Start)
				if tr == nil {
					continue
				}
				for i, st := range tr.Steps {
					if st.Span.Start < 0 || st.Span.End > len(text) || st.At > len(text) {
						t.Fatalf("%s: step %+v outside the document", doc.name, st)
					}
					if i < tr.Emptied && st.Count == 0 || i == tr.Emptied && st.Count != 0 {
						t.Fatalf("%s: step %d %+v, emptied %d", doc.name, i, st, tr.Emptied)
					}
					if tr.Noun == "documents" && i > 0 && st.Count > tr.Steps[i-1].Count {
						t.Fatalf("%s: JQL count grew at step %d: %+v", doc.name, i, tr.Steps)
					}
				}
				r, ok := run(ctx, s, sp.Start)
				if !ok || r.Err != nil {
					continue
				}
				if tr.Emptied >= 0 && r.Count != 0 {
					t.Fatalf("%s: emptied at %+v but %d result(s)", doc.name, tr.Steps[tr.Emptied], r.Count)
				}
				if tr.Noun == "documents" && len(tr.Steps) > 0 {
					jf := parsedOf(s).AST.(*jql.File)
					for _, jq := range jf.Queries {
						if jq != nil && jq.Sp.Start == sp.Start {
							if last := tr.Steps[len(tr.Steps)-1].Count; r.Count != min(last, jq.Limit) {
								t.Fatalf("%s: %d result(s), steps %+v (limit %d)", doc.name, r.Count, tr.Steps, jq.Limit)
							}
						}
					}
				}
			}
		}
	})
}
