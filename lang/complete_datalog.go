package lang

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// completeDatalog proposes, at off, the relations of the program (with
// argument placeholders), the variables of the rule under the cursor, and
// the keywords and aggregators that extend the word typed.
func completeDatalog(p *datalog.Program, info *datalog.Info, off int) []Completion {
	src := p.File.Text()
	off = min(max(off, 0), len(src))
	w := off
	for w > 0 && (isDLIdentByte(src[w-1])) {
		w--
	}
	typed := src[w:off]
	sp := syntax.Sp(w, off)
	var out []Completion
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
			out = append(out, Completion{Label: n, Kind: CompleteRelation, Snippet: true,
				Detail: fmt.Sprintf("%s(%s)", n, strings.Join(ri.Types, ", ")),
				Edit:   syntax.TextEdit{Span: sp, NewText: n + "(" + strings.Join(ph, ", ") + ")"}})
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
				out = append(out, Completion{Label: t.Value, Kind: CompleteVariable, Detail: "variable", Edit: syntax.TextEdit{Span: sp, NewText: t.Value}})
			}
		}
	}
	if typed != "" {
		for _, k := range datalog.Keywords {
			if k != typed && strings.HasPrefix(k, typed) {
				out = append(out, Completion{Label: k, Kind: CompleteKeyword, Detail: "keyword", Edit: syntax.TextEdit{Span: sp, NewText: k}})
			}
		}
		for _, k := range aggregators {
			if k != typed && strings.HasPrefix(k, typed) {
				out = append(out, Completion{Label: k, Kind: CompleteKeyword, Detail: "aggregator", Edit: syntax.TextEdit{Span: sp, NewText: k}})
			}
		}
	}
	return out
}
