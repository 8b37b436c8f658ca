package lang

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// checkSchema is the JQL schema the validity check reads, built once:
// Schema.Check only reads it, so every file shares it.
var checkSchema = sync.OnceValue(jql.NewSchema)

// CodeInvalidPACT is the code of a PACT query that parses but that the
// evaluator refuses (an unknown control, a mutation-only position, ...).
const CodeInvalidPACT = pact.CodeInvalid

// SyntaxCode returns the code the language's parser gives syntax errors:
// "pact-syntax", "SyntaxError" (JQL) or "datalog/syntax". These codes are
// part of the published JSON and LSP output and stay as they are; tools
// recognise syntax errors by their origin (syntax.OriginSyntax), never by
// their code.
func SyntaxCode(id ID) string {
	switch id {
	case PACT, Host:
		return pact.CodeSyntax
	case JQL:
		return jql.CodeSyntax
	case Datalog:
		return datalog.CodeSyntax
	}
	return ""
}

// Parsed is a parsed file: its language, its resolved dialect, its syntax
// tree and the diagnostics that make it invalid for every tool.
type Parsed struct {
	Lang    *Language
	File    *syntax.File
	Dialect pact.Dialect // PACT: the file's resolved dialect; DialectUnset for other languages
	// AST is *pact.File, *jql.File, *datalog.Program, or the *syntax.File
	// itself for Markdown and host source files.
	AST any
	// Diagnostics are the parser's diagnostics (origin syntax, or check
	// for JQL's invalid clauses) and the evaluator's refusals (origin
	// check), in source order. Rules are not run.
	Diagnostics []syntax.Diagnostic
	// Info is, for a Datalog program that parses, its check without a
	// schema (datalog.Check(prog, nil)), which validity used and rules
	// may reuse; nil otherwise.
	Info *datalog.Info
	// RuleInput is, for a Datalog program checked against sample data
	// (WithData), what the rules read of the data: the check, the schema
	// and which columns of the data hold numbers. nil otherwise.
	RuleInput any

	// editorInfo computes editorInfoVal, the check of a Datalog program
	// with errors, once (datalogInfo).
	editorInfo    sync.Once
	editorInfoVal *datalog.Info
}

// Invalid returns the diagnostics that make the file invalid: errors of
// origin syntax or check.
func (p *Parsed) Invalid() []syntax.Diagnostic { return syntax.Invalid(p.Diagnostics) }

// Valid reports whether no diagnostic makes the file invalid.
func (p *Parsed) Valid() bool { return len(p.Invalid()) == 0 }

// Parse parses src as a file of this language named name. PACT files
// without a pragma are parsed in dialect d (DialectUnset means v2); resolve
// d with Settings.Dialect. The result's diagnostics are those Validate
// returns.
func (l *Language) Parse(name, src string, d pact.Dialect) *Parsed {
	p := l.parse(name, src, d)
	p.Lang = l
	return p
}

// ParseFile parses src as the language of name under s, or returns
// ErrUnsupported. A Datalog program whose sample data s can load (its
// pragma or the configuration names it) is checked against the data's
// schema: the relations the data provides are known.
func ParseFile(name, src string, s Settings) (*Parsed, error) {
	l := ForName(name)
	if l == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	return s.withSchema(name, l.Parse(name, src, s.Dialect(name, pact.DialectUnset))), nil
}

// Arena is memory for parsing files one after the other (ParseFileIn):
// PACT trees and Datalog programs are allocated in it. The zero value is
// ready to use; an Arena is not safe for concurrent use.
type Arena struct {
	pact    pact.Arena
	datalog datalog.Arena
}

// Reset frees everything parsed in ar for reuse: the parses made before
// must no longer be used.
func (ar *Arena) Reset() {
	ar.pact.Reset()
	ar.datalog.Reset()
}

// ParseFileIn is ParseFile for a caller that is done with the parse before
// it parses the next file: a PACT tree (which holds no token list) and a
// Datalog program's tokens, most frequent nodes and check (Parsed.Info)
// are allocated in ar, and must not be used once ar is reset. The check
// records no variable occurrences (Info.Vars is empty: hover types are
// ParseFile's). Other languages parse as ParseFile does.
func ParseFileIn(ar *Arena, name, src string, s Settings) (*Parsed, error) {
	l := ForName(name)
	if l == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	d := s.Dialect(name, pact.DialectUnset)
	switch {
	case ar != nil && l.ID == PACT:
		f := pact.ParseFileTreeIn(&ar.pact, name, src, d)
		return &Parsed{Lang: l, File: f.Src, Dialect: f.Dialect, AST: f, Diagnostics: Validate(f)}, nil
	case ar != nil && l.ID == Datalog:
		ar.datalog.OmitVarTypes()
		p := checkDatalog(&ar.datalog, name, src, datalog.ParseProgramIn(&ar.datalog, name, src))
		p.Lang = l
		return s.withSchema(name, p), nil
	}
	return s.withSchema(name, l.Parse(name, src, d)), nil
}

// Validate returns the diagnostics that decide whether an already parsed
// tree is valid: the parser's own (origin syntax; JQL's invalid clauses
// origin check) and, when the tree parses, the evaluator's refusals (origin
// check), sorted. It is the one validity function of each language: the
// evaluators refuse exactly the queries it reports errors for, and
// "ctxql check" reports them whatever rules are selected. ast is a
// *pact.File, *jql.File or *datalog.Program; other values have no
// diagnostics. Every returned diagnostic is a copy with its origin set.
func Validate(ast any) []syntax.Diagnostic {
	var ds []syntax.Diagnostic
	switch a := ast.(type) {
	case *pact.File:
		ds = append(ds, a.Diagnostics...)
		syntax.WithOrigin(ds, syntax.OriginSyntax)
		for _, q := range a.Queries {
			if d, ok := ValidatePACT(q, ""); !ok {
				ds = append(ds, d)
			}
		}
	case *jql.File:
		ds = validateJQL(a)
	case *datalog.Program:
		return ValidateProgram(a, nil)
	}
	syntax.SortDiagnostics(ds)
	return ds
}

// ValidateProgram is Validate for a Datalog program whose check without a
// schema, info, the caller may already have (nil: it is run here).
func ValidateProgram(prog *datalog.Program, info *datalog.Info) []syntax.Diagnostic {
	ds := syntax.WithOrigin(slices.Clone(prog.Diagnostics), syntax.OriginSyntax)
	if !syntax.HasErrors(ds) {
		if info == nil {
			info = datalog.Check(prog, nil)
		}
		for _, d := range info.Diagnostics {
			// Without the data every relation the program does not
			// define is unknown: whether it exists depends on the data.
			if d.Severity == syntax.SeverityError && d.Code != datalog.CodeUnknownRelation {
				d.Origin = syntax.OriginCheck
				ds = append(ds, d)
			}
		}
	}
	syntax.SortDiagnostics(ds)
	return ds
}

// ValidatePACT returns the evaluator's refusal of one parsed PACT query as
// a diagnostic of origin check, or ok. Queries that did not parse are left
// to their syntax errors (ok). The evaluator's Compile refuses a parsed
// query exactly when pact.Validate reports a diagnostic, with the first
// one's message and span (the query's span when that is empty), so that is
// what is reported here without building a plan
// (TestValidatePACTMatchesCompile compares the two on every query of the
// test corpora). src, the query's text, is not needed.
func ValidatePACT(q *pact.Query, src string) (d syntax.Diagnostic, ok bool) {
	if q == nil || q.Bad || q.Expr == nil {
		return d, true
	}
	ds := pact.Validate(q)
	if len(ds) == 0 {
		return d, true
	}
	span := q.Sp
	if ds[0].Span != (syntax.Span{}) {
		span = ds[0].Span
	}
	return syntax.Diagnostic{Span: span, Severity: syntax.SeverityError, Origin: syntax.OriginCheck,
		Code: CodeInvalidPACT, Message: ds[0].Message}, false
}

// validateJQL is Validate for JQL: parse errors (origin syntax), invalid
// clauses (origin check) and the schema's refusals of each well-formed
// query (origin check), which are what the evaluator refuses.
func validateJQL(f *jql.File) []syntax.Diagnostic {
	var ds []syntax.Diagnostic
	for _, d := range f.Diagnostics {
		d.Origin = syntax.OriginSyntax
		if d.Code == jql.CodeInvalidQuery {
			d.Origin = syntax.OriginCheck
		}
		ds = append(ds, d)
	}
	if syntax.HasErrors(ds) {
		return ds
	}
	s := checkSchema()
	for _, q := range f.Queries {
		if q == nil {
			continue
		}
		for _, d := range s.Check(q) {
			if d.Severity == syntax.SeverityError {
				d.Origin = syntax.OriginCheck
				ds = append(ds, d)
			}
		}
	}
	return ds
}

func parsePACT(name, src string, d pact.Dialect) *Parsed {
	f := pact.ParseFile(name, src, d)
	return &Parsed{File: f.Src, Dialect: f.Dialect, AST: f, Diagnostics: Validate(f)}
}

func parseJQL(name, src string, _ pact.Dialect) *Parsed {
	f := jql.ParseFile(name, src)
	return &Parsed{File: syntax.NewFile(name, src), AST: f, Diagnostics: Validate(f)}
}

func parseDatalog(name, src string, _ pact.Dialect) *Parsed {
	return checkDatalog(nil, name, src, datalog.ParseProgram(name, src))
}

// checkDatalog is the parse of a Datalog program: the program checked,
// in ar when not nil, when it has no syntax error.
func checkDatalog(ar *datalog.Arena, name, src string, prog *datalog.Program) *Parsed {
	file := prog.File
	if file == nil {
		file = syntax.NewFile(name, src)
	}
	var info *datalog.Info
	if !syntax.HasErrors(prog.Diagnostics) {
		info = datalog.CheckIn(ar, prog, nil)
	}
	return &Parsed{File: file, AST: prog, Diagnostics: ValidateProgram(prog, info), Info: info}
}

func parseMarkdown(name, src string, _ pact.Dialect) *Parsed {
	f := syntax.NewFile(name, src)
	return &Parsed{File: f, AST: f}
}

// parseHost parses nothing: the embedded queries of a host file are found
// and parsed by the lint driver, which knows the configured calls.
func parseHost(name, src string, d pact.Dialect) *Parsed {
	f := syntax.NewFile(name, src)
	return &Parsed{File: f, Dialect: d, AST: f}
}

// Settings are the sources of a file's PACT dialect below its own pragma:
// the editor's setting and the project configuration.
type Settings struct {
	Editor pact.Dialect   // the editor's dialect setting; DialectUnset when none
	Config *config.Config // the project configuration; nil when none
	// EditorData names the sample data the editor's settings give a file
	// (between its pragma and the configuration); nil when none.
	EditorData func(name string) (path string, ok bool)
	// Load loads a file's sample data (DataCache.Load); ParseFile gives
	// a Datalog program the schema of its data through it. nil: data is
	// not loaded.
	Load func(l *Language, path string) (Data, error)
	// Dir is the working directory, absolute, that relative file names
	// are made absolute against (ConfigName, data pragmas); "" reads the
	// process's on each use. A command that checks many files sets it
	// once instead of asking the system for it per file.
	Dir string
}

// Source says where a resolved dialect came from.
type Source uint8

// The dialect sources, from strongest to weakest.
const (
	FromPragma  Source = iota + 1 // the file's "// pact: vN" pragma
	FromEditor                    // the editor setting
	FromConfig                    // .ctxql.yaml (dialect.files, dialect.default)
	FromDefault                   // v2
)

// String returns "pragma", "editor", "config" or "default".
func (s Source) String() string {
	switch s {
	case FromPragma:
		return "pragma"
	case FromEditor:
		return "editor"
	case FromConfig:
		return "config"
	case FromDefault:
		return "default"
	}
	return "unknown"
}

// Dialect resolves the PACT dialect of the file name: its pragma (pass
// DialectUnset when it has none, or to get the dialect its pragma-less
// lines are parsed in), else the editor setting, else the configuration,
// else v2. It is the one place the precedence is decided.
func (s Settings) Dialect(name string, pragma pact.Dialect) pact.Dialect {
	d, _ := s.Resolve(name, pragma)
	return d
}

// Resolve is Dialect that also says where the dialect came from.
func (s Settings) Resolve(name string, pragma pact.Dialect) (pact.Dialect, Source) {
	switch {
	case pragma != pact.DialectUnset:
		return pragma, FromPragma
	case s.Editor != pact.DialectUnset:
		return s.Editor, FromEditor
	}
	if s.Config != nil {
		if d, ok := s.Config.DialectSet(s.ConfigName(name)); ok {
			return d, FromConfig
		}
	}
	return pact.V2, FromDefault
}
