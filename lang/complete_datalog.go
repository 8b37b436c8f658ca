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
	if w > 0 && src[w-1] == '.' && w >= 2 && isDLIdentByte(src[w-2]) || w >= 2 && src[w-1] == '.' && src[w-2] == ')' {
		// After "recv.": the functions on text and numbers.
		for _, f := range datalog.Functions {
			if f.Recv == "" || !strings.HasPrefix(f.Name, typed) {
				continue
			}
			text := f.Name + "()"
			switch {
			case f.Name == "parse":
				text = "parse::<${1:i64}>()"
			case f.Args == 1:
				text = f.Name + "(${1:x})"
			}
			out = append(out, Completion{Label: f.Name, Kind: CompleteFunction, Snippet: true, Detail: dlFunctionSig(f), Edit: syntax.TextEdit{Span: sp, NewText: text}})
		}
		return out
	}
	if strings.HasPrefix("format", typed) && typed != "" {
		out = append(out, Completion{Label: "format!", Kind: CompleteFunction, Snippet: true, Detail: `format!("{}", x) -> String`,
			Edit: syntax.TextEdit{Span: sp, NewText: `format!("${1:{\}}", ${2:x})`}})
	}
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

// dlFunctionSig renders a function's signature: "s.len() -> usize".
func dlFunctionSig(f datalog.Function) string {
	if f.Recv == "" {
		return `format!("{}…", x…) -> String`
	}
	recv := map[string]string{"text": "s", "number": "x", "any": "v"}[f.Recv]
	args := ""
	if f.Args == 1 {
		args = "y"
	}
	name := f.Name
	if name == "parse" {
		name += "::<T>"
	}
	return fmt.Sprintf("%s.%s(%s) -> %s", recv, name, args, f.Result)
}
