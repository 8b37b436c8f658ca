package qtest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctxql/ctxql/internal/ghcmd"
	"github.com/ctxql/ctxql/internal/junit"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "json", "junit", "github"}

// WriteOptions configure Write.
type WriteOptions struct {
	Verbose  bool // text: list passing cases too
	MaxItems int  // text: results listed per side of a difference (0: 20)
	Version  string
}

// Summary counts the results of a run.
type Summary struct {
	Passed, Failed, Errors int
}

// Summarize counts results.
func Summarize(rs []*Result) Summary {
	var s Summary
	for _, r := range rs {
		switch r.Status {
		case Pass:
			s.Passed++
		case Fail:
			s.Failed++
		default:
			s.Errors++
		}
	}
	return s
}

// OK reports whether every case passed.
func (s Summary) OK() bool { return s.Failed == 0 && s.Errors == 0 }

// Write writes results in one of Formats.
func Write(w io.Writer, format string, rs []*Result, opts WriteOptions) error {
	switch format {
	case "text", "":
		return writeText(w, rs, opts)
	case "json":
		return writeJSON(w, rs)
	case "junit":
		return writeJUnit(w, rs)
	case "github":
		return writeGitHub(w, rs)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// where is "test-file:line:col" of a result.
func where(r *Result) string {
	p := r.Position()
	return fmt.Sprintf("%s:%d:%d", r.File.Name, p.Line, p.Column)
}

// queryWhere is "query-file:line:col" of a result's query, or "".
func queryWhere(r *Result) string {
	if r.QueryFile == nil {
		return ""
	}
	p := r.QueryFile.Position(r.QuerySpan.Start)
	return fmt.Sprintf("%s:%d:%d", r.QueryFile.Name(), p.Line, p.Column)
}

func writeText(w io.Writer, rs []*Result, opts WriteOptions) error {
	limit := opts.MaxItems
	if limit <= 0 {
		limit = 20
	}
	for _, r := range rs {
		if r.Status == Pass {
			if opts.Verbose {
				fmt.Fprintf(w, "--- PASS: %s %s (%s)\n", where(r), r.Name(), dur(r.Duration))
			}
			continue
		}
		label := "FAIL"
		if r.Status == Error {
			label = "ERROR"
		}
		name := r.Name()
		if name == "" {
			name = "(test file)"
		}
		fmt.Fprintf(w, "--- %s: %s %s (%s)\n", label, where(r), name, dur(r.Duration))
		if q := queryWhere(r); q != "" {
			fmt.Fprintf(w, "    query: %s\n", q)
		}
		for _, m := range r.Messages {
			fmt.Fprintf(w, "    %s\n", m)
		}
		for _, side := range []struct {
			mark  string
			items []string
		}{{"+", r.Added}, {"-", r.Removed}} {
			for i, x := range side.items {
				if i == limit {
					fmt.Fprintf(w, "      %s … and %d more\n", side.mark, len(side.items)-limit)
					break
				}
				fmt.Fprintf(w, "      %s %s\n", side.mark, clip(Display(x), 200))
			}
		}
	}
	s := Summarize(rs)
	line := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed+s.Errors)
	_, err := fmt.Fprintln(w, line)
	return err
}

func dur(d time.Duration) string {
	return fmt.Sprintf("%.3fs", d.Seconds())
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - 3
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// jsonResult is the JSON shape of one result: 1-based lines and byte
// columns, as in "ctxql check --format json".
type jsonResult struct {
	File     string            `json:"file"`
	Line     int               `json:"line"`
	Column   int               `json:"column"`
	Name     string            `json:"name"`
	Status   Status            `json:"status"`
	Query    *jsonPos          `json:"query,omitempty"`
	Messages []string          `json:"messages"`
	Added    []json.RawMessage `json:"added"`
	Removed  []json.RawMessage `json:"removed"`
	// Actual is every result the query returned, in the evaluator's
	// order (empty when the case could not run).
	Actual  []json.RawMessage `json:"actual"`
	Seconds float64           `json:"seconds"`
}

type jsonPos struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type jsonReport struct {
	Passed  int           `json:"passed"`
	Failed  int           `json:"failed"`
	Errors  int           `json:"errors"`
	Results []*jsonResult `json:"results"`
}

func writeJSON(w io.Writer, rs []*Result) error {
	s := Summarize(rs)
	rep := jsonReport{Passed: s.Passed, Failed: s.Failed, Errors: s.Errors, Results: []*jsonResult{}}
	for _, r := range rs {
		p := r.Position()
		jr := &jsonResult{File: r.File.Name, Line: p.Line, Column: p.Column, Name: r.Name(), Status: r.Status,
			Messages: nonNil(r.Messages), Added: RawJSON(r.Added), Removed: RawJSON(r.Removed), Actual: RawJSON(r.Got), Seconds: r.Duration.Seconds()}
		if r.QueryFile != nil {
			qp := r.QueryFile.Position(r.QuerySpan.Start)
			jr.Query = &jsonPos{File: r.QueryFile.Name(), Line: qp.Line, Column: qp.Column}
		}
		rep.Results = append(rep.Results, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// RawJSON returns JSON texts (the items of Result.Added, Removed and Got)
// as JSON values.
func RawJSON(xs []string) []json.RawMessage {
	out := make([]json.RawMessage, len(xs))
	for i, x := range xs {
		out[i] = json.RawMessage(x)
	}
	return out
}

// Display is a result (a JSON text) as the text outputs show it: a string
// without its quotes (a PACT id), anything else as JSON.
func Display(x string) string {
	var s string
	if strings.HasPrefix(x, `"`) && json.Unmarshal([]byte(x), &s) == nil {
		return s
	}
	return x
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func writeJUnit(w io.Writer, rs []*Result) error {
	out := &junit.Suites{CountErrors: true}
	index := map[string]int{}
	for _, r := range rs {
		i, ok := index[r.File.Name]
		if !ok {
			i = len(out.Suites)
			index[r.File.Name] = i
			out.Suites = append(out.Suites, junit.Suite{Name: r.File.Name})
		}
		s := &out.Suites[i]
		name := r.Name()
		if name == "" {
			name = "(test file)"
		}
		jc := junit.Case{Name: name, ClassName: r.File.Name, File: r.File.Name, Line: r.Position().Line, Time: fmt.Sprintf("%.3f", r.Duration.Seconds())}
		if r.Status != Pass {
			var b strings.Builder
			if q := queryWhere(r); q != "" {
				fmt.Fprintf(&b, "query: %s\n", q)
			}
			for _, m := range r.Messages {
				fmt.Fprintln(&b, m)
			}
			for _, x := range r.Added {
				fmt.Fprintf(&b, "+ %s\n", Display(x))
			}
			for _, x := range r.Removed {
				fmt.Fprintf(&b, "- %s\n", Display(x))
			}
			p := &junit.Problem{Message: first(r.Messages), Type: string(r.Status), Text: b.String()}
			if r.Status == Fail {
				jc.Failure = p
			} else {
				jc.Error = p
			}
		}
		s.Cases = append(s.Cases, jc)
	}
	for i := range out.Suites {
		var t time.Duration
		for _, r := range rs {
			if r.File.Name == out.Suites[i].Name {
				t += r.Duration
			}
		}
		out.Suites[i].Time = fmt.Sprintf("%.3f", t.Seconds())
	}
	return junit.Write(w, out)
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

// writeGitHub writes a GitHub Actions workflow command per failing case,
// at the case in its test file, and a summary line.
func writeGitHub(w io.Writer, rs []*Result) error {
	for _, r := range rs {
		if r.Status == Pass {
			continue
		}
		p := r.Position()
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s", r.Name(), strings.Join(r.Messages, "; "))
		for _, x := range r.Added {
			fmt.Fprintf(&b, "\n+ %s", Display(x))
		}
		for _, x := range r.Removed {
			fmt.Fprintf(&b, "\n- %s", Display(x))
		}
		fmt.Fprintln(w, ghcmd.Annotation{Level: "error", File: r.File.Name, Line: p.Line, Column: p.Column,
			Title: "ctxql test", Message: b.String()})
	}
	s := Summarize(rs)
	_, err := fmt.Fprintf(w, "%d passed, %d failed\n", s.Passed, s.Failed+s.Errors)
	return err
}
