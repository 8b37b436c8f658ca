package lsp

import (
	"context"
	"strings"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
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
	return lang.FindEmbedded(f.Name(), f.Text(), config.DefaultCalls(), lang.DialectUnset)
}

// ParseSnapshot finds the literals of the calls the document's
// configuration names and parses each in the document's resolved dialect;
// nothing when the configuration leaves the file's extension out.
func (hostLanguage) ParseSnapshot(s *Snapshot) any {
	cfg := s.Workspace.Project(s)
	path := FilePath(s.URI)
	if cfg == nil {
		cfg = config.Default()
	}
	if path != "" && !cfg.Embedded(path) {
		return &lang.Embedded{}
	}
	return lang.FindEmbedded(hostName(s), s.File.Text(), cfg.Calls(), s.Workspace.Dialect(s))
}

// hostName is the name the lint driver gives the document.
func hostName(s *Snapshot) string {
	if p := FilePath(s.URI); p != "" {
		return p
	}
	return s.URI
}

// hostOf is the document's embedded queries.
func hostOf(s *Snapshot) *lang.Embedded {
	if e, ok := s.Parsed().(*lang.Embedded); ok {
		return e
	}
	return &lang.Embedded{}
}

// Diagnostics are the findings of the embedded queries, mapped into the
// host file.
func (l hostLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	return s.findingsOf(ctx, func() []syntax.Diagnostic {
		if hostOf(s).Len() == 0 || l.linter == nil {
			return nil
		}
		_, ds, err := linterFor(l.linter, s).Check(ctx, hostName(s), s.File.Text())
		if err != nil {
			return nil
		}
		return ds
	})
}

// Hover explains the construct of the embedded query under the cursor
// and the rule behind a finding there.
func (l hostLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	desc, ok := hostOf(s).Describe(off)
	md, sp := desc.Markdown, desc.Span
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	return md, sp, ok
}

// CodeActions offers the quick fixes of the findings in the embedded
// queries (each rewriting its literal) and suppression comments.
func (l hostLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	if l.linter == nil || hostOf(s).Len() == 0 {
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
