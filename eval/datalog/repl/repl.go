// Package repl is the interactive Datalog session: bindings of names to
// terms ("let t = ..."), a current_term binding, query rules evaluated over
// loaded data and printed as tables, and ":relations" to show the schema.
//
// Session.Exec handles one line and Run drives a session over any
// io.Reader and io.Writer, so tests feed it input directly; the ctxql
// command adds line editing when stdin is a terminal.
package repl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// CurrentTerm is the name of the binding that holds the current term.
const CurrentTerm = "current_term"

// Session is the state of one REPL session.
type Session struct {
	db  *datalog.DB
	env map[string]string
}

// NewSession starts a session over db with no bindings.
func NewSession(db *datalog.DB) *Session {
	return &Session{db: db, env: map[string]string{}}
}

// Bind sets name to the term value; queries see it as a string constant.
func (s *Session) Bind(name, value string) { s.env[name] = value }

// Env returns the bindings as sorted name/value pairs.
func (s *Session) Env() [][2]string {
	out := make([][2]string, 0, len(s.env))
	for k, v := range s.env {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

const help = `commands:
  head(args) <-- body     evaluate a query rule and print its tuples
  let NAME = TERM         bind NAME to TERM; NAME in later queries stands for the term
  let current_term = TERM set the current term (used as current_term in queries)
  :relations              list the relations with their types and sizes
  :env                    list the bindings
  :help                   show this help
  :quit                   leave
`

// Exec runs one input line, writing its output to w. It reports false when
// the line asks to quit.
func (s *Session) Exec(ctx context.Context, line string, w io.Writer) bool {
	line = strings.TrimSpace(line)
	switch {
	case line == "" || strings.HasPrefix(line, "//"):
	case line == ":quit" || line == ":q" || line == ":exit":
		return false
	case line == ":help" || line == ":h":
		fmt.Fprint(w, help)
	case line == ":relations" || line == ":r":
		s.relations(w)
	case line == ":env":
		for _, kv := range s.Env() {
			fmt.Fprintf(w, "%s = %s\n", kv[0], syn.Quote(kv[1]))
		}
	case strings.HasPrefix(line, "let ") || strings.HasPrefix(line, "let\t"):
		s.let(strings.TrimSpace(line[4:]), w)
	case strings.Contains(line, "<--"):
		s.query(ctx, line, w)
	default:
		fmt.Fprintf(w, "error: not a query rule or command (type :help)\n")
	}
	return true
}

func (s *Session) let(rest string, w io.Writer) {
	name, term, ok := strings.Cut(rest, "=")
	name, term = strings.TrimSpace(name), strings.TrimSpace(term)
	if !ok || !isName(name) || name == "_" || name == "if" || name == "relation" {
		fmt.Fprintf(w, "error: expected let NAME = TERM\n")
		return
	}
	if term == "" {
		fmt.Fprintf(w, "error: let %s: missing term\n", name)
		return
	}
	if strings.HasPrefix(term, `"`) {
		v, ok := syn.Unquote(term)
		if !ok {
			fmt.Fprintf(w, "error: let %s: invalid string literal\n", name)
			return
		}
		term = v
	}
	s.env[name] = term
	fmt.Fprintf(w, "%s = %s\n", name, syn.Quote(term))
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

func (s *Session) relations(w io.Writer) {
	for _, r := range s.db.Relations() {
		fmt.Fprintf(w, "%s(%s)  %d tuples\n", r.Name, strings.Join(r.Types, ", "), r.Size)
	}
}

// Substitute replaces every bound name that stands where a term may (an
// identifier not followed by "(") with its value as a quoted string
// constant, leaving string literals, comments and relation names alone.
// It reports the names it found unbound among those reserved for
// bindings (current_term). Keywords are never replaced, nor the variables
// the rule binds itself with let, for or agg: those shadow the bindings.
func Substitute(src string, env map[string]string) (string, []string) {
	toks := syn.Lex(src)
	var b strings.Builder
	var missing []string
	last := 0
	own := map[string]bool{}
	for i, t := range toks {
		if t.Kind == syn.TokIdent && (t.Text == "let" || t.Text == "for" || t.Text == "agg") && i+1 < len(toks) && toks[i+1].Kind == syn.TokIdent {
			own[toks[i+1].Text] = true
		}
	}
	for i, t := range toks {
		if t.Kind != syn.TokIdent || syn.IsKeyword(t.Text) || own[t.Text] {
			continue
		}
		next := toks[min(i+1, len(toks)-1)]
		if next.Kind == syn.TokLParen {
			continue
		}
		v, ok := env[t.Text]
		if !ok {
			if t.Text == CurrentTerm {
				missing = append(missing, t.Text)
			}
			continue
		}
		b.WriteString(src[last:t.Span.Start])
		b.WriteString(syn.Quote(v))
		last = t.Span.End
	}
	b.WriteString(src[last:])
	return b.String(), missing
}

func (s *Session) query(ctx context.Context, line string, w io.Writer) {
	src, missing := Substitute(line, s.env)
	if len(missing) > 0 {
		fmt.Fprintf(w, "error: no current term: bind one with `let %s = TERM`\n", CurrentTerm)
		return
	}
	res, err := datalog.EvalRule(ctx, s.db, src)
	if err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
		return
	}
	if len(res.Diagnostics) > 0 {
		f := syntax.NewFile("query", src)
		if src != line {
			fmt.Fprintf(w, "in: %s\n", src)
		}
		for _, d := range res.Diagnostics {
			sev := "error"
			if d.Severity != syntax.SeverityError {
				sev = d.Severity.String()
			}
			fmt.Fprintf(w, "%s: %s: %s\n", f.Position(d.Span.Start), sev, d.Message)
		}
		if syntax.HasErrors(res.Diagnostics) {
			return
		}
	}
	var header []string
	for _, a := range res.Rule.Head.Args {
		header = append(header, a.Text)
	}
	WriteTable(w, header, res.Tuples)
}

// WriteTable prints tuples as an aligned table under header, followed by
// the tuple count.
func WriteTable(w io.Writer, header []string, rows [][]string) {
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, v := range r {
			if i < len(width) && len(v) > width[i] {
				width[i] = len(v)
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len(c)))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	if len(header) > 0 {
		line(header)
		seps := make([]string, len(header))
		for i := range seps {
			seps[i] = strings.Repeat("-", max(width[i], 1))
		}
		fmt.Fprintln(w, strings.Join(seps, "-+-"))
	}
	for _, r := range rows {
		line(r)
	}
	n := "tuples"
	if len(rows) == 1 {
		n = "tuple"
	}
	fmt.Fprintf(w, "(%d %s)\n", len(rows), n)
}

// Run reads lines from r until end of input or ":quit", executing each
// and writing output to w. prompt, when non-empty, is written before each
// line is read.
func Run(ctx context.Context, s *Session, r io.Reader, w io.Writer, prompt string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if prompt != "" {
			fmt.Fprint(w, prompt)
		}
		if !sc.Scan() {
			break
		}
		if !s.Exec(ctx, sc.Text(), w) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read input: %w", err)
	}
	return nil
}
