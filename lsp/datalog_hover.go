package lsp

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// Describe explains the symbol at off in Markdown: a relation's signature
// (declared, or the types inferred from the rules deriving it), whether it
// is derived or read from data, and how often it is used; a variable's
// inferred type.
func describeDatalog(p *datalog.Program, info *datalog.Info, off int) (string, syntax.Span, bool) {
	sym, sp, ok := dlSymbolAt(p, off)
	if !ok {
		return "", syntax.Span{}, false
	}
	occ := dlOccurrences(p, sym)
	switch sym.Kind {
	case dlRelation:
		var b strings.Builder
		sig := "?"
		if info != nil {
			if ri := info.Relations[sym.Name]; ri != nil {
				sig = strings.Join(ri.Types, ", ")
				fmt.Fprintf(&b, "**relation** `%s(%s)`", sym.Name, sig)
				switch {
				case ri.Derived && ri.InData:
					b.WriteString("\n\nDerived by rules and also given as facts.")
				case ri.Derived:
					b.WriteString("\n\nDerived by rules.")
				case ri.InData:
					b.WriteString("\n\nRead from data (facts or input).")
				}
			}
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "**relation** `%s`", sym.Name)
		}
		fmt.Fprintf(&b, "\n\n%d occurrence(s) in this program.", len(occ))
		return b.String(), sp, true
	case dlVariable:
		typ := "unknown"
		if info != nil {
			if vi, ok := info.TypeAt(sp.Start); ok && vi.Type != "" {
				typ = vi.Type
			}
		}
		return fmt.Sprintf("**variable** `%s`: %s\n\n%d occurrence(s) in this rule.", sym.Name, typ, len(occ)), sp, true
	}
	return "", syntax.Span{}, false
}

// Hover shows a relation's signature or a variable's inferred type, with
// the number of tuples the rule's relation holds over the sample data.
func (l datalogLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	p := datalogProgram(s)
	if p == nil {
		return "", syntax.Span{}, false
	}
	md, sp, ok := describeDatalog(p, datalogInfo(s, p), off)
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	// On a relation name: that relation's own count, not the count of the
	// rule the name appears in.
	if sym, symSpan, found := dlSymbolAt(p, off); found && sym.Kind == dlRelation {
		run, has := l.evaluate(ctx, s)
		if !has {
			return md, sp, ok
		}
		line := ""
		switch n, known := run.relationCount(sym.Name); {
		case run.err != nil:
			line = fmt.Sprintf("Sample data: %v", run.err)
		case run.invalid:
			line = "Sample data: the program has errors"
		case known:
			line = fmt.Sprintf("Sample data: `%s` holds **%d** tuple(s)", sym.Name, n)
		default:
			line = fmt.Sprintf("Sample data: `%s` holds no tuples", sym.Name)
		}
		if !ok {
			return line, symSpan, true
		}
		return md + "\n\n---\n\n" + line, sp, true
	}
	return withCount(ctx, s, off, md, sp, ok)
}
