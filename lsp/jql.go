package lsp

import (
	"context"
	"sort"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// jqlLanguage serves .jql and .jql.yaml files: parse diagnostics and one
// document symbol per query.
type jqlLanguage struct {
	linter *lint.Linter
}

func (jqlLanguage) ID() lang.ID { return lang.JQL }

// Parse parses every query of the file through the language table; the
// form follows the file name.
func (jqlLanguage) Parse(f *syntax.File) any {
	return lang.ByID(lang.JQL).Parse(f.Name(), f.Text(), lang.DialectUnset).AST
}

func jqlFile(s *Snapshot) *jql.File {
	jf, _ := s.Parsed().(*jql.File)
	return jf
}

// Diagnostics returns the parse errors, the front end's checks and the
// findings of every rule (parse errors only without a linter).
func (l jqlLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	return analyzed(ctx, l.linter, s, jf, jf.Diagnostics)
}

// Symbols lists one symbol per query, named after its "from" domain.
func (jqlLanguage) Symbols(_ context.Context, s *Snapshot) []Symbol {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	out := make([]Symbol, 0, len(jf.Queries))
	for _, q := range jf.Queries {
		name, sel := "query", q.Sp
		if q.From != nil && q.From.Str != "" {
			name, sel = "from "+q.From.Str, q.From.Sp
		}
		out = append(out, Symbol{Name: name, Kind: SymbolStruct, Span: q.Sp, Selection: sel})
	}
	return out
}

// SemanticTokens classifies a query document: the top-level keys and the
// where operators as keywords, field paths (select items and where keys)
// as properties, the domain as a namespace, other strings, numbers and
// booleans as literals.
func (jqlLanguage) SemanticTokens(_ context.Context, s *Snapshot) []SemanticToken {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	var out []SemanticToken
	add := func(sp syntax.Span, typ string) { out = append(out, SemanticToken{Span: sp, Type: typ}) }
	var walk func(v *jql.Value, role string)
	walk = func(v *jql.Value, role string) {
		if v == nil {
			return
		}
		switch v.Kind {
		case jql.KindObject:
			for _, m := range v.Members {
				keyType, valRole := "property", ""
				switch role {
				case "top":
					keyType = "keyword"
					switch m.Key.Str {
					case "from":
						valRole = "domain"
					case "select":
						valRole = "paths"
					case "where":
						valRole = "where"
					}
				case "where":
					valRole = "ops"
				case "ops":
					keyType = "operator"
				}
				add(m.Key.Sp, keyType)
				walk(m.Value, valRole)
			}
		case jql.KindArray:
			for _, e := range v.Elems {
				walk(e, role)
			}
		case jql.KindString:
			switch role {
			case "domain":
				add(v.Sp, "namespace")
			case "paths":
				add(v.Sp, "property")
			default:
				add(v.Sp, "string")
			}
		case jql.KindNumber:
			add(v.Sp, "number")
		case jql.KindBool, jql.KindNull:
			add(v.Sp, "keyword")
		}
	}
	for _, q := range jf.Queries {
		if q != nil {
			walk(q.Root, "top")
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// CodeActions offers the rules' fixes, "fix all" and, in the forms that
// have comments (object literal, YAML), suppression directives.
func (l jqlLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	jf := jqlFile(s)
	if jf == nil || l.linter == nil {
		return nil
	}
	comments := len(jf.Queries) > 0
	for _, q := range jf.Queries {
		if q == nil || q.Form == jql.FormJSON {
			comments = false
		}
	}
	lt := linterFor(l.linter, s)
	return lintActions(ctx, lt, s, l.Diagnostics(ctx, s), span, comments)
}

// Format formats the document with the canonical JQL printer.
func (jqlLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	return formatWith(s)
}
