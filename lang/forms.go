package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// HostsQueries reports whether the language's files are source code of
// another language whose string literals hold PACT queries: a tool takes
// such a file only where the configuration embeds queries in it
// (config.Config.Embedded).
func (l *Language) HostsQueries() bool { return l.ID == Host }

// Program reports whether a file of the language is one program,
// evaluated as a whole, whose results are the relations its rules derive
// (Datalog): its data failing or its errors fail the whole file. The
// queries of the other languages are evaluated one by one.
func (l *Language) Program() bool { return l.ID == Datalog }

// Proves reports whether the language proves a result and says why one is
// not derived (Datalog's Why and WhyNot, "ctxql eval --why").
func (l *Language) Proves() bool { return l.ID == Datalog }

// InlineName names query text src of the language written outside a file
// of its own (a test case's inline query) after base, with the suffix
// under which src parses in its form: JQL written as JSON or an object
// literal starts with "{", JQL written as YAML does not.
func (l *Language) InlineName(base, src string) string {
	ext := l.Extensions()[0]
	if l.ID == JQL && !strings.HasPrefix(strings.TrimSpace(src), "{") {
		ext = ".jql.yaml"
	}
	return base + ext
}

// ExpectedItem reads a result item written by hand (a test's expected
// result, as JSON) the way the language prints its results: a Datalog
// tuple holds strings, so the numbers and booleans of a list (which YAML
// reads in [a, 2]) are the strings they are written as. The items of the
// other languages are returned as they are.
func (l *Language) ExpectedItem(raw json.RawMessage) json.RawMessage {
	if l == nil || !l.Program() {
		return raw
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return raw
	}
	for i, m := range list {
		var v any
		dec := json.NewDecoder(bytes.NewReader(m))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			return raw
		}
		switch v := v.(type) {
		case json.Number:
			list[i], _ = json.Marshal(v.String())
		case bool:
			list[i], _ = json.Marshal(fmt.Sprint(v))
		}
	}
	b, err := json.Marshal(list)
	if err != nil {
		return raw
	}
	return b
}

// LeftAsIs returns the errors of the queries Format leaves as they are
// written because they are invalid, with the file to place them: PACT's
// formatter never changes whether a query is valid (an omitted time prefix
// written out as "@t0" would make "@mode" valid), so it does not touch
// them. The formatters of the other languages leave no query as written.
func (l *Language) LeftAsIs(name string, src []byte, d Dialect) (*syntax.File, []syntax.Diagnostic) {
	if l.ID != PACT {
		return nil, nil
	}
	p := l.Parse(name, string(src), d)
	var out []syntax.Diagnostic
	for _, dg := range p.Diagnostics {
		if dg.Origin == syntax.OriginCheck && dg.Severity == syntax.SeverityError {
			out = append(out, dg)
		}
	}
	return p.File, out
}

// SchemaOf returns the schema of the language id for the languages that
// have one ("ctxql schema jql"): JQL's domains, fields and operators.
func SchemaOf(id ID) (*jql.Schema, bool) {
	if id != JQL {
		return nil, false
	}
	return JQLSchema(), true
}

// DataPragmaEdit is the edit that makes the file name path (as it is to
// be written: relative to the file's directory, slash-separated) as its
// sample data: its data pragma rewritten when it has one, else a new one
// after the PACT dialect pragma when that opens the file, else at the
// top, in the file's comment syntax. It is the one writer of the pragma,
// as DataPragma is its one reader.
func (p *Parsed) DataPragmaEdit(path string) syntax.TextEdit {
	text := p.Lang.Comment(p.File.Name()).Wrap("data: " + path)
	if pr, ok := p.DataPragma(); ok {
		return syntax.TextEdit{Span: pr.Span, NewText: text}
	}
	nl := "\n"
	if src := p.File.Text(); strings.Contains(src, "\r\n") && strings.Index(src, "\r\n") == strings.Index(src, "\n")-1 {
		nl = "\r\n"
	}
	if f, ok := p.AST.(*pact.File); ok && f.Pragma != nil && f.Pragma.Sp.Start == 0 {
		end := p.File.LineEnd(0)
		return syntax.TextEdit{Span: syntax.Sp(end, end), NewText: nl + text}
	}
	return syntax.TextEdit{Span: syntax.Sp(0, 0), NewText: text + nl}
}
