// Package dllint holds the analysis rules for Datalog programs (.dl files
// in Ascent syntax). Every rule receives the parsed program
// (*datalog.Program) as Pass.AST.
//
// The first rules are the findings of the Datalog checker
// (datalog.Check): each class of checker finding is one rule with its own
// code, so that configuration can select, ignore or re-rank it. They call
// the checker and classify its diagnostics rather than re-implementing it.
// Pass.Data may carry a precomputed *datalog.Info (one check shared by all
// rules of a document version) or a datalog.Schema (the relations the data
// provides); otherwise the program is checked without a schema.
//
// The remaining rules look for suspicious programs the checker accepts:
// singleton variables, declared relations nothing uses and rules that can
// never fire.
package dllint

import (
	"slices"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// Analyzers returns the rules of this package, a fresh slice on every call.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		unknownRelation, arityMismatch, unsafeVariable, headWildcard,
		unstratifiedNegation, typeMismatch, declConflict,
		singletonVariable, unusedRelation, ruleNeverFires, numericTextComparison,
	}
}

// CheckerCodes maps each code of a Datalog checker finding that a program
// check can produce to the code of the rule reporting it.
func CheckerCodes() map[string]string {
	return map[string]string{
		datalog.CodeUnknownRelation: "DL001",
		datalog.CodeArity:           "DL002",
		datalog.CodeUnsafe:          "DL003",
		datalog.CodeHeadWildcard:    "DL004",
		datalog.CodeUnstratifiable:  "DL005",
		datalog.CodeTypeMismatch:    "DL006",
		datalog.CodeDeclConflict:    "DL007",
	}
}

// program returns the Datalog program of a pass, or nil for any other input.
func program(p *analysis.Pass) *datalog.Program {
	prog, _ := p.AST.(*datalog.Program)
	return prog
}

// complete reports whether a program parsed without errors and every node
// the checker reads is present. Whole-program rules run only on complete
// programs: a rule dropped by the parser could hold the use or definition
// they would miss.
func complete(prog *datalog.Program) bool {
	if prog == nil || syntax.HasErrors(prog.Diagnostics) {
		return false
	}
	for _, d := range prog.Decls {
		if d == nil {
			return false
		}
	}
	for _, r := range prog.Rules {
		if r == nil || !atomOK(r.Head) {
			return false
		}
		for _, h := range r.Heads {
			if !atomOK(h) {
				return false
			}
		}
		if !itemsOK(r.Body) {
			return false
		}
	}
	return true
}

// atomOK reports whether an atom and its arguments are present.
func atomOK(a *datalog.Atom) bool {
	if a == nil {
		return false
	}
	for _, t := range a.Args {
		if t == nil {
			return false
		}
	}
	return true
}

// itemsOK reports whether every node of a body is present.
func itemsOK(items []datalog.BodyItem) bool {
	for _, b := range items {
		switch {
		case b.Atom != nil:
			if !atomOK(b.Atom) {
				return false
			}
		case b.Cond != nil:
			if b.Cond.Left == nil || b.Cond.Right == nil {
				return false
			}
		case b.If != nil:
			if b.If.X == nil {
				return false
			}
		case b.Let != nil:
			if b.Let.Var == nil || b.Let.X == nil {
				return false
			}
		case b.For != nil:
			if b.For.Var == nil || b.For.Lo == nil || b.For.Hi == nil {
				return false
			}
		case b.Agg != nil:
			if !atomOK(b.Agg.Atom) {
				return false
			}
		case b.Disj != nil:
			for _, alt := range b.Disj.Alts {
				if !itemsOK(alt) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// info returns the checker's result for the pass's program: the one the
// driver precomputed in Pass.Data, a check against the schema in Pass.Data,
// or a check without a schema. It returns nil for incomplete programs.
func info(p *analysis.Pass) *datalog.Info {
	prog := program(p)
	if !complete(prog) {
		return nil
	}
	switch d := p.Data.(type) {
	case *datalog.Info:
		if d != nil {
			return d
		}
	case datalog.Schema:
		return datalog.Check(prog, d)
	case *Sample:
		if d != nil && d.Info != nil {
			return d.Info
		}
		if d != nil {
			return datalog.Check(prog, d.Schema)
		}
	}
	return datalog.Check(prog, nil)
}

// precomputed returns the check the driver made (Pass.Data), or nil.
func precomputed(p *analysis.Pass) *datalog.Info {
	switch d := p.Data.(type) {
	case *datalog.Info:
		return d
	case *Sample:
		if d != nil {
			return d.Info
		}
	}
	return nil
}

// Sample is the Pass.Data of a run with sample data: what the rules that
// look at values need, besides the check.
type Sample struct {
	// Info is the program's check against Schema; nil: checked here.
	Info   *datalog.Info
	Schema datalog.Schema
	// Numeric maps each relation of the data to, per column, whether the
	// column holds values and every one is a plain decimal number.
	Numeric map[string][]bool
}

// NumericColumns returns, for tuples of arity ar, whether each column
// holds values and every one is a plain decimal number (see
// datalog.ParseDecimal).
func NumericColumns(tuples [][]string, ar int) []bool {
	out := make([]bool, ar)
	for i := range out {
		out[i] = len(tuples) > 0
	}
	for _, t := range tuples {
		for i, v := range t {
			if i < ar && out[i] {
				_, out[i] = datalog.ParseDecimal(v)
			}
		}
	}
	return out
}

// fromChecker returns a Run function reporting the checker findings with
// code checkerCode under the running analyzer's code.
func fromChecker(checkerCode string) func(*analysis.Pass) error {
	return func(p *analysis.Pass) error {
		if pre := precomputed(p); pre != nil && !slices.ContainsFunc(pre.Diagnostics, func(d syntax.Diagnostic) bool { return d.Code == checkerCode }) {
			// Nothing to report, complete or not: no walk of the
			// program.
			return nil
		}
		in := info(p)
		if in == nil {
			return nil
		}
		for _, d := range in.Diagnostics {
			if d.Code != checkerCode {
				continue
			}
			d.Code = ""
			d.Related = append([]syntax.RelatedInfo(nil), d.Related...)
			d.SuggestedFixes = append([]syntax.SuggestedFix(nil), d.SuggestedFixes...)
			p.Report(d)
		}
		return nil
	}
}

var unknownRelation = &analysis.Analyzer{
	Code: "DL001", Name: "unknown-relation", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A rule uses a relation that is neither declared, provided by the data nor defined by a rule or fact",
		Details: "Every relation in a rule must come from somewhere: a `relation` declaration, the data's schema, " +
			"or a rule or fact of the program whose head defines it. An unknown name is usually a typo; " +
			"the query would read an empty relation.",
		Bad:  "relation edge(Proc, Proc);\npath(x, y) <-- egde(x, y);",
		Good: "relation edge(Proc, Proc);\npath(x, y) <-- edge(x, y);",
	},
	Run: fromChecker(datalog.CodeUnknownRelation),
}

var arityMismatch = &analysis.Analyzer{
	Code: "DL002", Name: "arity-mismatch", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A relation is used with a different number of arguments than it has parameters",
		Details: "A relation's arity comes from its declaration, the data's schema, or the first rule or fact that " +
			"defines it. Every use must pass exactly that many arguments.",
		Bad:  "relation edge(Proc, Proc);\npath(x) <-- edge(x);",
		Good: "relation edge(Proc, Proc);\npath(x) <-- edge(x, _);",
	},
	Run: fromChecker(datalog.CodeArity),
}

var unsafeVariable = &analysis.Analyzer{
	Code: "DL003", Name: "unsafe-variable", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A variable of the head, a negation or a condition is not bound by a positive body atom",
		Details: "A rule is safe when every variable in its head, in its negated atoms and in its conditions also " +
			"occurs in a positive body atom; only then is the set of results finite and independent of the domain. " +
			"In a negation, write `_` for \"any value\". The wildcard `_` cannot appear in a condition.",
		Bad:  "relation edge(Proc, Proc);\npath(x, z) <-- edge(x, y);",
		Good: "relation edge(Proc, Proc);\npath(x, y) <-- edge(x, y);",
	},
	Run: fromChecker(datalog.CodeUnsafe),
}

var headWildcard = &analysis.Analyzer{
	Code: "DL004", Name: "head-wildcard", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "The wildcard `_` appears in a rule head",
		Details: "A head argument names a value of each derived tuple; `_` names none. Use a variable bound in the body, " +
			"or drop the column.",
		Bad:  "relation edge(Proc, Proc);\nsource(x, _) <-- edge(x, _);",
		Good: "relation edge(Proc, Proc);\nsource(x) <-- edge(x, _);",
	},
	Run: fromChecker(datalog.CodeHeadWildcard),
}

var unstratifiedNegation = &analysis.Analyzer{
	Code: "DL005", Name: "unstratified-negation", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A relation is negated in a rule that (directly or through recursion) defines it",
		Details: "Negation must be stratified: a rule may negate a relation only when that relation is completely " +
			"computed before the rule's head, so negation through recursion has no well-defined result.",
		Bad:  "relation node(Proc);\nwin(x) <-- node(x), !win(x);",
		Good: "relation node(Proc);\nrelation lost(Proc);\nwin(x) <-- node(x), !lost(x);",
	},
	Run: fromChecker(datalog.CodeUnstratifiable),
}

var typeMismatch = &analysis.Analyzer{
	Code: "DL006", Name: "type-mismatch", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A variable is used at positions of different declared types",
		Details: "A variable takes the type of its first occurrence in a positive body atom; every other occurrence " +
			"must be at a position of the same type, or the join compares values of different sorts.",
		Bad:  "relation proc(Proc);\nrelation name(Name);\nboth(x) <-- proc(x), name(x);",
		Good: "relation proc(Proc);\nrelation quote(Proc, Name);\nboth(x) <-- proc(x), quote(x, _);",
	},
	Run: fromChecker(datalog.CodeTypeMismatch),
}

var declConflict = &analysis.Analyzer{
	Code: "DL007", Name: "declaration-conflict", Category: "correctness", Language: analysis.Datalog,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A relation is declared twice, or declared with other types than the data has",
		Details: "Each relation has one declaration. A declaration of a relation the data provides must repeat the " +
			"data's parameter types.",
		Bad:  "relation edge(Proc, Proc);\nrelation edge(Proc, Proc);\npath(x, y) <-- edge(x, y);",
		Good: "relation edge(Proc, Proc);\npath(x, y) <-- edge(x, y);",
	},
	Run: fromChecker(datalog.CodeDeclConflict),
}
