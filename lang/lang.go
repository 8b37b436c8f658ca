// Package lang is the one table of the languages ctxql knows. Every tool
// (the command line, the language server, the MCP server, "ctxql diff")
// asks it what a file is and does everything language-specific through it,
// so the tools agree:
//
//   - what a file is: ForName, ByID, All, Queries; Language.Extensions,
//     Language.Comment (comment syntax per suffix);
//   - dialects: ParseDialect (the one parser of "v1"/"v2"),
//     Settings.Resolve (pragma, editor, configuration, default);
//   - parsing and validity: ParseFile (with Settings: the resolved dialect
//     and, for Datalog, the schema of the file's sample data), Parsed,
//     Validate, CheckQuery;
//   - comments and pragmas: Parsed.Comments, Parsed.Directives (only in
//     real comments), Suppressible and SuppressEdit (never for an error
//     that makes a query invalid), Parsed.LeadingComments,
//     Parsed.DataPragma and Settings.DataPath (the one resolution of a
//     file's sample data);
//   - formatting: Language.Format, Language.IsCanonical;
//   - migration: Language.Migrate (resolved source and target dialects;
//     the output parses in its dialect);
//   - evaluation: Language.Load (immutable Data, safe for concurrent
//     evaluations), Language.Evaluate (query text), Language.EvaluateFile
//     (every query of a parsed file), Language.Explain, one Result type;
//     DataCache; budget errors (*LimitError) name no flag, the calling
//     tool adds how to raise the limit;
//   - descriptions: Parsed.Describe (hover text of every query language),
//     PACTVocabulary (the documented words, for completion),
//     Parsed.SymbolAt and Parsed.Occurrences (Datalog symbols),
//     DescribeNodes (PACT result nodes), JQLSchema, RelationSizes;
//   - editor answers: Parsed.Outline, Parsed.Tokens, Parsed.Complete
//     (with DataVocabulary and SampleDocs of the sample data),
//     Parsed.Rename, Parsed.QueryAt, Parsed.Rules, Parsed.Fields,
//     Parsed.FormatRange, Parsed.PragmaDialect, Parsed.Commentable,
//     FindEmbedded (the queries of host files), Step.End of explained
//     steps;
//   - rules: Language.Analyzers, Registry; Parsed.WithData gives a
//     Datalog program's rules the sample data they read.
//
// Each query language implements one Evaluator (pacteval.go, jqleval.go,
// dleval.go). The table is built once and read-only: callers must not
// modify the *Language values it returns.
package lang

import (
	"errors"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/dllint"
	"github.com/ctxql/ctxql/analysis/jqllint"
	"github.com/ctxql/ctxql/analysis/pactlint"
	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/format"
	"github.com/ctxql/ctxql/internal/fileuri"
	"github.com/ctxql/ctxql/syntax/host"
	"github.com/ctxql/ctxql/syntax/pact"
)

// ID identifies a language. It is also the LSP language identifier and the
// language of the analysis rules (analysis.Language).
type ID = analysis.Language

// The languages. Host is source code in another language (.ts, .js, .py,
// .go) whose string literals passed to configured calls are PACT queries.
const (
	PACT     ID = analysis.PACT
	JQL      ID = analysis.JQL
	Datalog  ID = analysis.Datalog
	Markdown ID = analysis.Markdown
	Host     ID = "host"
)

// ErrUnsupported reports a file whose name names no language ctxql knows, or
// an operation a language does not have (formatting Markdown).
var ErrUnsupported = errors.New("unsupported file type")

// Comment is the comment syntax of a language: where "ctxql:ignore"
// directives live and how a suppression comment is written.
type Comment struct {
	Line  string // line comment prefix ("//" or "#"); "" when the language has none
	Open  string // block comment opener ("<!--"); "" when the language has none
	Close string // block comment closer ("-->")
}

// Wrap returns text as a comment in this syntax: a line comment when the
// language has one, else a block comment.
func (c Comment) Wrap(text string) string {
	if c.Line != "" {
		return c.Line + " " + text
	}
	return c.Open + " " + text + " " + c.Close
}

// suffix is one file name suffix of a language, with the comment syntax of
// files with that suffix.
type suffix struct {
	ext     string
	comment Comment
}

// Language is one row of the table.
type Language struct {
	ID   ID
	Name string // display name: "PACT", "JQL", "Datalog", "Markdown", "host source"

	suffixes []suffix
	// Dialects reports whether the language has dialects (PACT, and host
	// files whose embedded queries are PACT).
	Dialects bool

	parse  func(name, src string, d pact.Dialect) *Parsed
	format func(name string, src []byte, d pact.Dialect) ([]byte, error)
	// canonical reports whether src is in canonical form without printing
	// it whole; nil: compare with format's output.
	canonical func(src []byte, d pact.Dialect) (bool, error)
	eval      Evaluator
	// quotes are the string quote characters, inside which comment
	// markers are text.
	quotes string
	// lineLocal: every line is parsed on its own, so a line's findings
	// depend on its text and the file's dialect alone (PACT).
	lineLocal bool
}

var (
	slash = Comment{Line: "//"}
	hash  = Comment{Line: "#"}
	html  = Comment{Open: "<!--", Close: "-->"}
)

// table builds the language table.
func table() []*Language {
	hostSuffixes := []suffix{}
	for _, e := range host.Extensions() {
		c := slash
		if e == ".py" {
			c = hash
		}
		hostSuffixes = append(hostSuffixes, suffix{e, c})
	}
	return []*Language{
		{
			ID: PACT, Name: "PACT", Dialects: true,
			suffixes:  []suffix{{".pact", slash}},
			parse:     parsePACT,
			format:    func(_ string, src []byte, d pact.Dialect) ([]byte, error) { return format.PACTDialect(src, d) },
			canonical: format.PACTIsCanonicalDialect,
			eval:      pactEval{},
			quotes:    `"'`,
			lineLocal: true,
		},
		{
			ID: JQL, Name: "JQL",
			suffixes: []suffix{{".jql", slash}, {".jql.json", slash}, {".jql.yaml", hash}, {".jql.yml", hash}},
			parse:    parseJQL,
			format:   func(name string, src []byte, _ pact.Dialect) ([]byte, error) { return format.JQL(name, src) },
			eval:     jqlEval{},
			quotes:   `"'`,
		},
		{
			ID: Datalog, Name: "Datalog",
			suffixes:  []suffix{{".dl", slash}},
			parse:     parseDatalog,
			format:    func(_ string, src []byte, _ pact.Dialect) ([]byte, error) { return format.Datalog(src) },
			canonical: func(src []byte, _ pact.Dialect) (bool, error) { return format.DatalogIsCanonical(src) },
			eval:      datalogEval{},
			quotes:    `"`,
		},
		{
			ID: Markdown, Name: "Markdown",
			suffixes: []suffix{{".md", html}},
			parse:    parseMarkdown,
		},
		{
			ID: Host, Name: "host source", Dialects: true,
			suffixes: hostSuffixes,
			parse:    parseHost,
			quotes:   "\"'`",
		},
	}
}

var languages = sync.OnceValue(table)

// All returns every language of the table, PACT, JQL, Datalog, Markdown and
// host source files in that order.
func All() []*Language { return languages() }

// Queries returns the query languages: PACT, JQL and Datalog.
func Queries() []*Language { return languages()[:3] }

// ByID returns the language with the identifier id, or nil.
func ByID(id ID) *Language {
	for _, l := range languages() {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// ForName returns the language of a file name (or a file: URI), chosen by
// its longest matching suffix, case-insensitively; nil when ctxql does not
// know such files.
func ForName(name string) *Language {
	l, _ := match(name)
	return l
}

func match(name string) (*Language, suffix) {
	n := strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/")))
	var (
		best *Language
		bs   suffix
	)
	for _, l := range languages() {
		for _, s := range l.suffixes {
			if strings.HasSuffix(n, s.ext) && len(s.ext) > len(bs.ext) {
				best, bs = l, s
			}
		}
	}
	return best, bs
}

// Extensions returns the file name suffixes of the language, with the dot
// (".pact", ".jql.yaml"), in a fixed order.
func (l *Language) Extensions() []string {
	out := make([]string, len(l.suffixes))
	for i, s := range l.suffixes {
		out[i] = s.ext
	}
	return out
}

// Comment returns the comment syntax of the file name, which must be of
// this language: YAML JQL files use "#", Python host files "#", Markdown
// HTML comments, the rest "//".
func (l *Language) Comment(name string) Comment {
	if m, s := match(name); m == l {
		return s.comment
	}
	return l.suffixes[0].comment
}

// CanFormat reports whether the language has a canonical formatter.
func (l *Language) CanFormat() bool { return l.format != nil }

// Format prints src in the language's canonical form. PACT files without a
// pragma are read (and printed) in dialect d. A source with syntax errors is
// not formatted: the error is a *format.SyntaxError. Languages without a
// formatter return ErrUnsupported. The output has the source's line ends:
// CRLF when its first line ends in CRLF, else LF.
func (l *Language) Format(name string, src []byte, d pact.Dialect) ([]byte, error) {
	if l.format == nil {
		return nil, ErrUnsupported
	}
	out, err := l.format(name, src, d)
	if err != nil {
		return nil, err
	}
	return format.KeepLineEnds(src, out), nil
}

// SyntaxError is the error of Format and IsCanonical for a source with
// syntax errors: it is not formatted.
type SyntaxError = format.SyntaxError

// IsCanonical reports whether src is already in the language's canonical
// form, as Format prints it (line ends included), comparing as it prints
// where the language can (PACT, Datalog).
func (l *Language) IsCanonical(name string, src []byte, d pact.Dialect) (bool, error) {
	if l.format == nil {
		return false, ErrUnsupported
	}
	if l.canonical != nil {
		return l.canonical(src, d)
	}
	out, err := l.format(name, src, d)
	return err == nil && string(format.KeepLineEnds(src, out)) == string(src), err
}

// Analyzers returns the analysis rules of the language, in code order
// (none for host files, whose embedded queries run the PACT rules).
func (l *Language) Analyzers() []*analysis.Analyzer {
	var out []*analysis.Analyzer
	for _, a := range analyzers() {
		if a.Language == l.ID {
			out = append(out, a)
		}
	}
	return out
}

// analyzers are the rules of every language, built once.
var analyzers = sync.OnceValue(func() []*analysis.Analyzer {
	var as []*analysis.Analyzer
	as = append(as, pactlint.Analyzers()...)
	as = append(as, jqllint.Analyzers()...)
	as = append(as, dllint.Analyzers()...)
	return as
})

// Registry returns a registry of the rules of every language.
func Registry() (*analysis.Registry, error) {
	return analysis.NewRegistry(analyzers()...)
}

// AbsName is a file name (or a file: URI, as the language server names
// documents) made absolute against the working directory: the form the
// configuration's file queries take.
func AbsName(name string) string { return absNameIn("", name) }

// isFileURI reports whether name is a file: URI (a scheme is case
// insensitive); only a name that starts so is parsed as a URI.
func isFileURI(name string) bool {
	if len(name) < 5 || !strings.EqualFold(name[:5], "file:") {
		return false
	}
	u, err := url.Parse(name)
	return err == nil && u.Scheme == "file"
}

// absNameIn is AbsName with relative names joined to dir, an absolute
// working directory ("": the process's, read now).
func absNameIn(dir, name string) string {
	if isFileURI(name) {
		return fileuri.Path(name)
	}
	if dir != "" && !filepath.IsAbs(name) {
		return filepath.Join(dir, name)
	}
	if a, err := filepath.Abs(name); err == nil {
		return a
	}
	return name
}

// ConfigName is the form of a file name the configuration's file queries
// take: absolute (AbsName) for a configuration read from a directory, as
// given (a file: URI made a path) for one that belongs to none
// (config.Parse), whose anchored globs match relative names only.
func ConfigName(cfg *config.Config, name string) string { return configNameIn("", cfg, name) }

// ConfigName is the package's ConfigName for the settings' configuration,
// relative names made absolute against the settings' Dir.
func (s Settings) ConfigName(name string) string { return configNameIn(s.Dir, s.Config, name) }

func configNameIn(dir string, cfg *config.Config, name string) string {
	if cfg != nil && cfg.Dir() == "" {
		if isFileURI(name) {
			return fileuri.Path(name)
		}
		return name
	}
	return absNameIn(dir, name)
}
