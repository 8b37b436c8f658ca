package lang

import (
	"slices"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// OutlineKind says what an outline entry is.
type OutlineKind uint8

// The outline entry kinds.
const (
	OutlineQuery    OutlineKind = iota + 1 // a PACT query, written as text
	OutlineRelation                        // a Datalog relation declaration
	OutlineRule                            // a Datalog rule
	OutlineFact                            // a Datalog fact
	OutlineObject                          // a JQL query, written as an object
	OutlineHeading                         // a Markdown section, named by its heading
)

// Outline is one entry of a file's outline, with byte-offset spans.
type Outline struct {
	Name      string
	Detail    string
	Kind      OutlineKind
	Span      syntax.Span // the whole construct
	Selection syntax.Span // the name or most interesting part, inside Span
}

// Outline lists the constructs of a parsed file in source order: one entry
// per PACT query (named by its text) and per JQL query (named after its
// domain); the relation declarations, rules and facts of a Datalog
// program; the sections of a Markdown file, one per heading (from the
// heading to the next of the same or a higher level). Host files have
// none.
func (p *Parsed) Outline() []Outline {
	var out []Outline
	switch a := p.AST.(type) {
	case *pact.File:
		for _, q := range a.Queries {
			detail := q.Dialect.String()
			if q.Bad {
				detail += " (errors)"
			}
			out = append(out, Outline{Name: strings.TrimSpace(a.Src.Slice(q.Sp)), Detail: detail, Kind: OutlineQuery, Span: q.Sp, Selection: q.Sp})
		}
	case *jql.File:
		for _, q := range a.Queries {
			if q == nil {
				continue
			}
			name, sel := "query", q.Sp
			if q.From != nil && q.From.Str != "" {
				name, sel = "from "+q.From.Str, q.From.Sp
			}
			out = append(out, Outline{Name: name, Kind: OutlineObject, Span: q.Sp, Selection: sel})
		}
	case *datalog.Program:
		for _, d := range a.Decls {
			detail := "relation"
			if d.Lattice {
				detail = "lattice"
			}
			if d.DS != nil {
				detail = d.DS.Name + " relation"
			}
			out = append(out, Outline{Name: d.Name.Name, Detail: detail, Kind: OutlineRelation, Span: d.Sp, Selection: d.Name.Sp})
		}
		for _, r := range a.Rules {
			for _, h := range dlHeads(r) {
				kind, detail := OutlineRule, "rule"
				if r.IsFact() {
					kind, detail = OutlineFact, "fact"
				}
				out = append(out, Outline{Name: h.Name.Name, Detail: detail, Kind: kind, Span: r.Sp, Selection: h.Name.Sp})
			}
		}
		slices.SortStableFunc(out, func(a, b Outline) int { return a.Span.Start - b.Span.Start })
	default:
		out = markdownSections(p)
	}
	return out
}

// dlHeads returns every head of a rule (a rule may derive several
// relations at once).
func dlHeads(r *datalog.Rule) []*datalog.Atom {
	if len(r.Heads) > 0 {
		return r.Heads
	}
	if r.Head != nil {
		return []*datalog.Atom{r.Head}
	}
	return nil
}
