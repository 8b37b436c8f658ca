package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// dlCompletion is one proposal: Text replaces Span (the word before the
// cursor). Snippet is Text with LSP snippet placeholders for the
// arguments of a relation.
type dlCompletion struct {
	Label, Text, Snippet, Detail string
	Kind                         lang.SymbolKind
	Span                         syntax.Span
}

// Complete proposes the relations (with their arity) and the variables of
// the rule around off that extend the word before the cursor.
func completeDatalog(p *datalog.Program, info *datalog.Info, off int) []dlCompletion {
	src := p.File.Text()
	off = min(max(off, 0), len(src))
	w := off
	for w > 0 && (isDLIdentByte(src[w-1])) {
		w--
	}
	typed := src[w:off]
	sp := syntax.Sp(w, off)
	var out []dlCompletion
	if info != nil {
		names := make([]string, 0, len(info.Relations))
		for n := range info.Relations {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !strings.HasPrefix(n, typed) {
				continue
			}
			ri := info.Relations[n]
			var ph []string
			for i, t := range ri.Types {
				if t == "" {
					t = fmt.Sprintf("arg%d", i+1)
				}
				ph = append(ph, fmt.Sprintf("${%d:%s}", i+1, t))
			}
			out = append(out, dlCompletion{Label: n, Text: n, Snippet: n + "(" + strings.Join(ph, ", ") + ")",
				Detail: fmt.Sprintf("%s(%s)", n, strings.Join(ri.Types, ", ")), Kind: dlRelation, Span: sp})
		}
	}
	for _, r := range p.Rules {
		if !r.Sp.Touches(off) {
			continue
		}
		seen := map[string]bool{}
		for _, t := range dlRuleTerms(r) {
			if t.Kind == datalog.Var && !seen[t.Value] && t.Value != typed && strings.HasPrefix(t.Value, typed) && !t.Sp.Touches(off) {
				seen[t.Value] = true
				out = append(out, dlCompletion{Label: t.Value, Text: t.Value, Snippet: t.Value, Detail: "variable", Kind: dlVariable, Span: sp})
			}
		}
	}
	return out
}

// Complete proposes relations with argument snippets and the variables of
// the current rule.
func (datalogLanguage) Complete(_ context.Context, s *Snapshot, off int) []CompletionItem {
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	var out []CompletionItem
	for _, c := range completeDatalog(p, datalogInfo(s, p), off) {
		edit := syntax.TextEdit{Span: c.Span, NewText: c.Text}
		kind, snippet := 6, false // Variable
		if c.Kind == dlRelation {
			kind, snippet = 3, true // Function, with argument placeholders
			edit.NewText = c.Snippet
		}
		out = append(out, CompletionItem{Label: c.Label, Kind: kind, Detail: c.Detail, Edit: &edit, Snippet: snippet})
	}
	return out
}
