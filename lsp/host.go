package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/host"
	"github.com/ctxql/ctxql/syntax/pact"
)

// hostLanguage serves the PACT queries embedded in host source files
// (.ts, .js, .py, .go): the string literals passed as first argument to the
// calls of the configuration's embedded.calls (ctx.select by default).
// Their diagnostics, hovers and quick fixes are those of the query, mapped
// into the literal; a fix rewrites the whole literal with its escapes
// re-encoded. A file whose extension embedded.extensions leaves out, or
// with no such call, gets nothing.
type hostLanguage struct {
	linter *lint.Linter
}

func (hostLanguage) ID() lang.ID { return lang.Host }

// Parse finds the literals of the default calls.
func (hostLanguage) Parse(f *syntax.File) any {
	return hostFile{lits: host.Find(f.Name(), []byte(f.Text()), config.DefaultCalls())}
}

// hostFile is the parse of a host file: its embedded queries.
type hostFile struct {
	lits    []host.Literal
	queries []*pact.File // the literals' values parsed, in the resolved dialect
}

// ParseSnapshot finds the literals of the calls the document's
// configuration names, and parses each.
func (hostLanguage) ParseSnapshot(s *Snapshot) any {
	cfg := s.Workspace.Project(s)
	path := FilePath(s.URI)
	if cfg == nil {
		cfg = config.Default()
	}
	if path != "" && !cfg.Embedded(path) {
		return hostFile{}
	}
	hf := hostFile{lits: host.Find(hostName(s), []byte(s.File.Text()), cfg.Calls())}
	d := s.Workspace.Dialect(s)
	for _, l := range hf.lits {
		hf.queries = append(hf.queries, pact.ParseFile(hostName(s), l.Value, d))
	}
	return hf
}

// hostName is the name a host document is checked under: its path, or
// its URI for other schemes.
func hostName(s *Snapshot) string {
	if p := FilePath(s.URI); p != "" {
		return p
	}
	return s.URI
}

func hostOf(s *Snapshot) hostFile {
	hf, _ := s.Parsed().(hostFile)
	return hf
}

// Diagnostics returns the findings of the embedded queries in host
// offsets, as "ctxql check" reports them.
func (l hostLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	return s.findings(ctx, func() []syntax.Diagnostic {
		hf := hostOf(s)
		if len(hf.lits) == 0 || l.linter == nil {
			return nil
		}
		_, ds, err := linterFor(l.linter, s).Check(ctx, hostName(s), s.File.Text())
		if err != nil {
			return nil
		}
		return ds
	})
}

// literalAt returns the index of the literal whose span holds off, or -1.
func (hf hostFile) literalAt(off int) int {
	for i, l := range hf.lits {
		if l.Span.Start <= off && off <= l.Span.End {
			return i
		}
	}
	return -1
}

// valueOffset maps a host offset inside a literal to the offset in its
// value of the character there (the closing quote maps to the value's end).
func valueOffset(l host.Literal, off int) int {
	n := len(l.Value)
	return sort.Search(n+1, func(i int) bool { return l.HostOffset(i) > off }) - 1
}

// Hover explains the PACT token under the cursor inside an embedded query
// and the rules behind the findings there.
func (l hostLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	hf := hostOf(s)
	i := hf.literalAt(off)
	if i < 0 || i >= len(hf.queries) {
		return "", syntax.Span{}, false
	}
	lit := hf.lits[i]
	v := max(valueOffset(lit, off), 0)
	desc, ok := lang.DescribePACTQuery(hf.queries[i], v)
	md, sp := desc.Markdown, desc.Span
	if ok {
		sp = lit.HostSpan(sp)
		md = fmt.Sprintf("Embedded PACT query (`%s`)\n\n%s", lit.Call, md)
	}
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	return md, sp, ok
}

// CodeActions offers the quick fixes of the findings in the embedded
// queries (each rewriting its literal) and suppression comments.
func (l hostLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	if l.linter == nil || len(hostOf(s).lits) == 0 {
		return nil
	}
	var out []CodeAction
	for _, a := range lintActions(ctx, linterFor(l.linter, s), s, l.Diagnostics(ctx, s), span, true) {
		if a.Kind == "source.fixAll" && !strings.Contains(a.Title, "embedded") {
			a.Title = "Fix all safe ctxql findings in the embedded queries"
		}
		out = append(out, a)
	}
	return out
}
