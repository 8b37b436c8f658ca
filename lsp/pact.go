package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// pactLanguage serves .pact files: parse errors and rule findings with
// their quick fixes, one document symbol per query and semantic tokens from
// the lexer. A nil linter reports parse errors only.
type pactLanguage struct {
	tableFeatures
	linter *lint.Linter
}

func (pactLanguage) ID() lang.ID { return lang.PACT }

// Parse parses the whole file through the language table; the dialect
// comes from the pragma (V2 when absent).
func (l pactLanguage) Parse(f *syntax.File) any {
	return lang.ByID(l.ID()).Parse(f.Name(), f.Text(), lang.DialectUnset)
}

// ParseSnapshot parses with the document's resolved dialect (pragma, else
// the editor setting, else .ctxql.yaml, else v2).
func (l pactLanguage) ParseSnapshot(s *Snapshot) any {
	return tableOf(s).Parse(s.File.Name(), s.File.Text(), s.Workspace.Dialect(s))
}

// linterFor is the linter configured by the document's .ctxql.yaml.
func linterFor(l *lint.Linter, s *Snapshot) *lint.Linter {
	if l == nil {
		return nil
	}
	// The document's configuration and the editor's dialect setting, as
	// the language table resolves them.
	lt, _ := s.linter.get(context.Background(), struct{}{}, func() (*lint.Linter, bool) {
		if s.Workspace == nil {
			return l, true
		}
		out := l.WithEditorDialect(s.Workspace.settings().EditorDialect)
		if cfg := s.Workspace.Project(s); cfg != nil {
			out = out.WithConfig(cfg)
		}
		return out, true
	})
	return lt
}

// Diagnostics returns the parse errors and the findings of every PACT rule,
// after suppression directives and the configuration. Lines an edit did not
// change are not parsed again (lineCache).
func (l pactLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	return s.findingsOf(ctx, func() []syntax.Diagnostic {
		if s.Workspace != nil {
			if ds, ok := s.Workspace.lines.lineDiagnostics(ctx, linterFor(l.linter, s), s, s.Workspace.Dialect(s)); ok {
				return ds
			}
		}
		p := parsedOf(s)
		if p == nil {
			return nil
		}
		if l.linter == nil {
			return append([]syntax.Diagnostic(nil), p.Diagnostics...)
		}
		return linterFor(l.linter, s).Analyze(ctx, p.File, p.AST)
	})
}

// CodeActions offers the rule actions (lintActions) and, for a v1 file,
// "Migrate file to v2".
func (l pactLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	p := parsedOf(s)
	if p == nil || l.linter == nil {
		return nil
	}
	out := lintActions(ctx, linterFor(l.linter, s), s, l.Diagnostics(ctx, s), span, true)
	if p.Dialect == lang.V1 && wanted(ctx, "source.migrate") {
		// The file's lines without a pragma are read in its resolved
		// dialect, as the parse above read them.
		opts := lang.MigrateOptions{From: s.Workspace.Dialect(s), To: lang.V2}
		if res, err := tableOf(s).Migrate(s.File.Name(), []byte(s.File.Text()), opts); err == nil && res.Changed {
			out = append(out, CodeAction{Title: "Migrate file to v2", Kind: "source.migrate", Edits: res.Edits})
		}
	}
	return out
}

// Format formats the whole file with the language table's printer, under
// the document's resolved dialect.
func (pactLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	out, err := tableOf(s).Format(s.File.Name(), []byte(s.File.Text()), s.Workspace.Dialect(s))
	if err != nil {
		return nil, err
	}
	return minimalEdit(s.File.Text(), string(out)), nil
}

// FormatRange formats the queries on the lines span touches
// (lang.Parsed.FormatRange).
func (pactLanguage) FormatRange(_ context.Context, s *Snapshot, span syntax.Span) ([]syntax.TextEdit, error) {
	p := parsedOf(s)
	if p == nil {
		return nil, nil
	}
	return p.FormatRange(span)
}
