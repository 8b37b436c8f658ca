package lang

import (
	"slices"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Token is one classified span of a file, for highlighting. Type and
// Modifiers are names of the standard LSP semantic token types and
// modifiers ("keyword", "variable"; "declaration"). Spans may cover
// several lines.
type Token struct {
	Span      syntax.Span
	Type      string
	Modifiers []string
}

// Tokens classifies the tokens of a parsed file in source order: for PACT
// the lexer's tokens, for JQL the top-level keys and where operators
// (keywords), field paths (properties), the domain (a namespace) and
// literals, for Datalog relation names (declarations marked), variables,
// parameter types, keywords, literals, operators and comments.
func (p *Parsed) Tokens() []Token {
	switch a := p.AST.(type) {
	case *pact.File:
		return pactTokens(a)
	case *jql.File:
		return jqlTokens(a)
	case *datalog.Program:
		return datalogTokens(a)
	}
	return nil
}

// pactTokenType maps the PACT token kinds to token types.
func pactTokenType(k pact.TokenKind) string {
	switch k {
	case pact.TokenTime, pact.TokenControl:
		return "macro"
	case pact.TokenRoot:
		return "namespace"
	case pact.TokenType:
		return "type"
	case pact.TokenHash:
		return "variable"
	case pact.TokenTag:
		return "decorator"
	case pact.TokenPseudo:
		return "function"
	case pact.TokenAttrKey:
		return "property"
	case pact.TokenOperator, pact.TokenCombinator:
		return "operator"
	case pact.TokenString:
		return "string"
	case pact.TokenNumber, pact.TokenDepth:
		return "number"
	case pact.TokenComment, pact.TokenPragma:
		return "comment"
	case pact.TokenKeyword:
		return "keyword"
	}
	return "" // identifiers, punctuation and invalid bytes are not highlighted
}

func pactTokens(f *pact.File) []Token {
	out := make([]Token, 0, len(f.Tokens))
	for _, t := range f.Tokens {
		typ := pactTokenType(t.Kind)
		if typ == "" {
			continue
		}
		tok := Token{Span: t.Sp, Type: typ}
		if t.Kind == pact.TokenPragma {
			tok.Modifiers = []string{"documentation"}
		}
		out = append(out, tok)
	}
	return out
}

func jqlTokens(f *jql.File) []Token {
	var out []Token
	add := func(sp syntax.Span, typ string) { out = append(out, Token{Span: sp, Type: typ}) }
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
	for _, q := range f.Queries {
		if q != nil {
			walk(q.Root, "top")
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

func datalogTokens(p *datalog.Program) []Token {
	kind := map[int]Token{}
	params := map[string]bool{}
	for _, h := range p.Headers {
		for _, t := range h.Params {
			params[t.Name] = true
		}
	}
	for _, h := range p.Headers {
		kind[h.Keyword.Start] = Token{Type: "keyword"}
		kind[h.Name.Sp.Start] = Token{Type: "struct", Modifiers: []string{"declaration"}}
		for _, t := range h.Tokens {
			if t.Kind == datalog.TokIdent && t.Text == "where" {
				kind[t.Span.Start] = Token{Type: "keyword"}
			} else if t.Kind == datalog.TokIdent && params[t.Text] {
				kind[t.Span.Start] = Token{Type: "typeParameter"}
			} else if _, ok := kind[t.Span.Start]; !ok && t.Kind == datalog.TokIdent {
				kind[t.Span.Start] = Token{Type: "type"}
			}
		}
		for _, t := range h.Params {
			kind[t.Sp.Start] = Token{Type: "typeParameter", Modifiers: []string{"declaration"}}
		}
	}
	for _, m := range p.Macros {
		kind[m.Keyword.Start] = Token{Type: "keyword"}
		kind[m.Name.Sp.Start] = Token{Type: "macro", Modifiers: []string{"declaration"}}
		for _, t := range m.Params {
			kind[t.Sp.Start] = Token{Type: "parameter", Modifiers: []string{"declaration"}}
		}
		for _, t := range m.Body {
			if t.Kind == datalog.TokIdent && strings.HasPrefix(t.Text, "$") {
				kind[t.Span.Start] = Token{Type: "parameter"}
			}
		}
	}
	for _, r := range p.Rules {
		for _, b := range r.Body {
			if b.Macro != nil {
				kind[b.Macro.Name.Sp.Start] = Token{Type: "macro"}
			}
		}
		for _, h := range r.AllHeads() {
			if h.Macro != nil {
				kind[h.Macro.Name.Sp.Start] = Token{Type: "macro"}
			}
		}
	}
	for _, d := range p.Decls {
		for _, t := range p.Tokens {
			if !d.Eq.IsZero() && t.Span.Start > d.Eq.Start && t.Kind == datalog.TokIdent && t.Text == "vec" {
				kind[t.Span.Start] = Token{Type: "macro"} // the initializer's vec!
				break
			}
		}
		for _, t := range d.Types {
			if params[t.Name] {
				kind[t.Sp.Start] = Token{Type: "typeParameter"}
			}
		}
	}
	for _, d := range p.Decls {
		// An attribute #[ds(path::eqrel)]: ds a decorator, the path's
		// segments namespaces and its data structure a type; the
		// names inside a tuple type are types.
		for _, t := range p.Tokens {
			switch {
			case t.Kind != datalog.TokIdent:
			case d.Attr.IsZero() && !slices.ContainsFunc(d.Types, func(ty datalog.Ident) bool { return datalog.IsTupleType(ty.Name) }):
			case !d.Attr.IsZero() && d.Attr.Contains(t.Span.Start) && t.Text == "ds":
				kind[t.Span.Start] = Token{Type: "decorator"}
			case !d.Attr.IsZero() && d.Attr.Contains(t.Span.Start) && d.DS != nil && t.Span == d.DS.Sp:
				kind[t.Span.Start] = Token{Type: "type"}
			case !d.Attr.IsZero() && d.Attr.Contains(t.Span.Start):
				kind[t.Span.Start] = Token{Type: "namespace"}
			default:
				for _, ty := range d.Types {
					if datalog.IsTupleType(ty.Name) && ty.Sp.Contains(t.Span.Start) && !params[t.Text] {
						kind[t.Span.Start] = Token{Type: "type"}
					}
				}
			}
		}
		kind[d.Name.Sp.Start] = Token{Type: "function", Modifiers: []string{"declaration"}}
		for _, t := range d.Types {
			if _, ok := kind[t.Sp.Start]; !ok {
				kind[t.Sp.Start] = Token{Type: "type"}
			}
		}
	}
	for _, r := range p.Rules {
		for _, a := range r.Atoms() {
			if a != nil {
				kind[a.Name.Sp.Start] = Token{Type: "function"}
			}
		}
		datalog.Inspect(r, func(n datalog.Node) bool {
			if c, ok := n.(*datalog.Call); ok {
				if c.Recv == nil {
					kind[c.Name.Sp.Start] = Token{Type: "macro"}
				} else {
					kind[c.Name.Sp.Start] = Token{Type: "method"}
				}
				if c.Type != nil {
					kind[c.Type.Sp.Start] = Token{Type: "type"}
				}
			}
			return true
		})
		for _, t := range dlRuleTerms(r) {
			if !t.Dual.IsZero() {
				kind[t.Dual.Start] = Token{Type: "type"}
			}
			if t.Kind == datalog.Var || t.Kind == datalog.Wildcard {
				kind[dlVarSpan(p.File.Text(), t).Start] = Token{Type: "variable"}
			}
		}
	}
	var out []Token
	for _, t := range p.Tokens {
		tok := Token{Span: t.Span}
		switch t.Kind {
		case datalog.TokIdent:
			if k, ok := kind[t.Span.Start]; ok {
				tok.Type, tok.Modifiers = k.Type, k.Modifiers
			} else if datalog.IsKeyword(t.Text) || isAggregator(t.Text) {
				tok.Type = "keyword"
			} else {
				continue
			}
		case datalog.TokNumber:
			tok.Type = "number"
		case datalog.TokString:
			tok.Type = "string"
		case datalog.TokComment:
			tok.Type = "comment"
		case datalog.TokArrow, datalog.TokBang, datalog.TokOp, datalog.TokArith, datalog.TokLogic, datalog.TokPunct:
			tok.Type = "operator"
		default:
			continue
		}
		out = append(out, tok)
	}
	return out
}

// aggregators are the names of the Datalog aggregators.
var aggregators = []string{datalog.AggCount, datalog.AggSum, datalog.AggMin, datalog.AggMax, datalog.AggMean, datalog.AggNot}

func isAggregator(s string) bool {
	for _, a := range aggregators {
		if a == s {
			return true
		}
	}
	return false
}
