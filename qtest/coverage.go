package qtest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Coverage records which parts of the tested query files the cases
// exercised: PACT steps and filters, JQL conditions, Datalog rules and
// body items. A part is covered when, in at least one case, it matched a
// candidate (PACT, JQL) or derived a tuple (Datalog). Every part of a query
// file some case names counts, so queries no case runs show as uncovered.
// Inline queries belong to no query file and are not counted.
type Coverage struct {
	mu    sync.Mutex
	files map[string]*FileCoverage
	// Files are the query files, sorted by name, once the run is done.
	Files []*FileCoverage
}

// FileCoverage is the coverage of one query file.
type FileCoverage struct {
	Name  string
	File  *syntax.File
	Parts []*PartCoverage // in source order
}

// PartCoverage is one part of a query and what the cases did with it.
type PartCoverage struct {
	Span syntax.Span
	Kind string // "step", "filter", "condition", "rule", "body item"
	Text string
	Runs int           // the cases that ran it
	Hits int           // the cases in which it matched or derived something
	Rows int           // candidates, documents or tuples it left, summed over the cases
	Time time.Duration // time spent in it, summed over the cases (profiles)
}

// Covered returns the parts covered and the parts in all.
func (f *FileCoverage) Covered() (covered, total int) {
	for _, p := range f.Parts {
		if p.Hits > 0 {
			covered++
		}
	}
	return covered, len(f.Parts)
}

// Total returns the parts covered and the parts in all over every file.
func (c *Coverage) Total() (covered, total int) {
	for _, f := range c.Files {
		a, b := f.Covered()
		covered += a
		total += b
	}
	return covered, total
}

// Percent is the covered share of the parts, 100 when there are none.
func Percent(covered, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(covered) / float64(total)
}

func newCoverage() *Coverage { return &Coverage{files: map[string]*FileCoverage{}} }

// record adds the parts of the query file p, as a case exercised the query
// res on data d.
func (c *Coverage) record(ctx context.Context, p *lang.Parsed, res *lang.Result, d lang.Data, opts Options) {
	parts, err := p.Lang.Parts(ctx, d, p, res.Span, opts.Budget)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	name := p.File.Name()
	fc := c.files[name]
	if fc == nil {
		fc = &FileCoverage{Name: name, File: p.File}
		c.files[name] = fc
	}
	for _, pt := range parts {
		i, found := slices.BinarySearchFunc(fc.Parts, pt.Span, func(a *PartCoverage, s syntax.Span) int {
			if a.Span.Start != s.Start {
				return a.Span.Start - s.Start
			}
			return a.Span.End - s.End
		})
		if !found {
			fc.Parts = slices.Insert(fc.Parts, i, &PartCoverage{Span: pt.Span, Kind: pt.Kind, Text: pt.Text})
		}
		if !pt.Ran {
			continue
		}
		fc.Parts[i].Runs++
		if pt.Rows > 0 {
			fc.Parts[i].Hits++
		}
		fc.Parts[i].Rows += pt.Rows
		fc.Parts[i].Time += pt.Time
	}
}

func (c *Coverage) finish() {
	for _, f := range c.files {
		c.Files = append(c.Files, f)
	}
	slices.SortFunc(c.Files, func(a, b *FileCoverage) int { return strings.Compare(a.Name, b.Name) })
}

// CoverageFormats are the formats of WriteCoverage.
var CoverageFormats = []string{"text", "json", "lcov"}

// WriteCoverage writes the coverage as text (per file, the uncovered
// parts, then the total), JSON or LCOV.
func WriteCoverage(w io.Writer, format string, c *Coverage) error {
	switch format {
	case "text", "":
		for _, f := range c.Files {
			a, b := f.Covered()
			fmt.Fprintf(w, "%s: %.1f%% of %d part(s) covered\n", f.Name, Percent(a, b), b)
			for _, p := range f.Parts {
				if p.Hits == 0 {
					fmt.Fprintf(w, "  %s: not covered: %s %s\n", f.File.Position(p.Span.Start), p.Kind, clip(oneLine(p.Text), 80))
				}
			}
		}
		a, b := c.Total()
		_, err := fmt.Fprintf(w, "coverage: %.1f%% of %d part(s)\n", Percent(a, b), b)
		return err
	case "json":
		return writeCoverageJSON(w, c)
	case "lcov":
		return writeLCOV(w, c)
	}
	return fmt.Errorf("unknown coverage format %q (want %s)", format, strings.Join(CoverageFormats, ", "))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

type jsonPart struct {
	Line      int     `json:"line"`
	Column    int     `json:"column"`
	EndLine   int     `json:"endLine"`
	EndColumn int     `json:"endColumn"`
	Kind      string  `json:"kind"`
	Text      string  `json:"text"`
	Hits      int     `json:"hits"`
	Rows      int     `json:"rows"`
	Seconds   float64 `json:"seconds"`
}

type jsonFile struct {
	File    string     `json:"file"`
	Covered int        `json:"covered"`
	Total   int        `json:"total"`
	Percent float64    `json:"percent"`
	Parts   []jsonPart `json:"parts"`
}

type jsonCoverage struct {
	Covered int        `json:"covered"`
	Total   int        `json:"total"`
	Percent float64    `json:"percent"`
	Files   []jsonFile `json:"files"`
}

func writeCoverageJSON(w io.Writer, c *Coverage) error {
	a, b := c.Total()
	out := jsonCoverage{Covered: a, Total: b, Percent: round1(Percent(a, b)), Files: []jsonFile{}}
	for _, f := range c.Files {
		x, y := f.Covered()
		jf := jsonFile{File: f.Name, Covered: x, Total: y, Percent: round1(Percent(x, y)), Parts: []jsonPart{}}
		for _, p := range f.Parts {
			s, e := f.File.Position(p.Span.Start), f.File.Position(p.Span.End)
			jf.Parts = append(jf.Parts, jsonPart{Line: s.Line, Column: s.Column, EndLine: e.Line, EndColumn: e.Column,
				Kind: p.Kind, Text: p.Text, Hits: p.Hits, Rows: p.Rows, Seconds: p.Time.Seconds()})
		}
		out.Files = append(out.Files, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func round1(x float64) float64 { return float64(int(x*10+0.5)) / 10 }

// writeLCOV writes the coverage as an LCOV trace: a part is a line's
// "branch", and a line is hit when every part on it is.
func writeLCOV(w io.Writer, c *Coverage) error {
	for _, f := range c.Files {
		fmt.Fprintln(w, "TN:")
		fmt.Fprintf(w, "SF:%s\n", f.Name)
		type line struct{ hits, parts, covered int }
		lines := map[int]*line{}
		var order []int
		for i, p := range f.Parts {
			n := f.File.LineOf(p.Span.Start) + 1
			l := lines[n]
			if l == nil {
				l = &line{hits: -1}
				lines[n] = l
				order = append(order, n)
			}
			l.parts++
			if p.Hits > 0 {
				l.covered++
			}
			if l.hits < 0 || p.Hits < l.hits {
				l.hits = p.Hits
			}
			taken := "-"
			if p.Hits > 0 || p.Rows > 0 {
				taken = fmt.Sprint(p.Hits)
			}
			fmt.Fprintf(w, "BRDA:%d,0,%d,%s\n", n, i, taken)
		}
		x, y := f.Covered()
		fmt.Fprintf(w, "BRF:%d\nBRH:%d\n", y, x)
		slices.Sort(order)
		hit := 0
		for _, n := range order {
			fmt.Fprintf(w, "DA:%d,%d\n", n, lines[n].hits)
			if lines[n].hits > 0 {
				hit++
			}
		}
		fmt.Fprintf(w, "LF:%d\nLH:%d\n", len(order), hit)
		fmt.Fprintln(w, "end_of_record")
	}
	return nil
}

// WriteProfile writes the n parts that took the most time over all cases,
// slowest first, with their rows; parts no case ran are left out.
func WriteProfile(w io.Writer, c *Coverage, n int) error {
	type row struct {
		f *FileCoverage
		p *PartCoverage
	}
	var rows []row
	for _, f := range c.Files {
		for _, p := range f.Parts {
			if p.Runs > 0 {
				rows = append(rows, row{f, p})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(b.p.Time, a.p.Time) })
	fmt.Fprintln(w, "profile: slowest parts")
	for i, r := range rows {
		if i == n {
			break
		}
		fmt.Fprintf(w, "  %s:%s: %s %s: %d row(s) in %s\n", r.f.Name, r.f.File.Position(r.p.Span.Start), r.p.Kind,
			clip(oneLine(r.p.Text), 60), r.p.Rows, r.p.Time.Round(100*time.Nanosecond))
	}
	return nil
}
