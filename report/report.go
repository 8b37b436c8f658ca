// Package report prints lint findings for people and for machines: text
// with a code frame, JSON, SARIF 2.1.0 for code-scanning services, GitHub
// Actions workflow commands and JUnit XML. It knows nothing about how the
// findings were produced.
package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/ctxql/ctxql/internal/fileuri"
	"github.com/ctxql/ctxql/internal/ghcmd"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/syntax"
)

// Formats are the output formats Write knows, the default first.
var Formats = []string{"text", "json", "sarif", "github", "junit"}

// Finding is one diagnostic of one file.
type Finding struct {
	Path    string       // the file's path as the user named it
	File    *syntax.File // the file's text, for positions and code frames
	Diag    syntax.Diagnostic
	Fixable bool // a fix the current run may apply exists
}

// Rule is what a report says about a diagnostic code.
type Rule struct {
	Code, Name, Summary string
	HelpURI             string
	Severity            syntax.Severity
}

// Options are the report's context.
type Options struct {
	Tool    string          // tool name, "ctxql" when empty
	Version string          // tool version, for SARIF
	Rules   map[string]Rule // by code, for SARIF rule metadata
	Files   []string        // every checked path, for JUnit test cases of clean files
	// MaxPerFile caps the findings the text format prints per file; the
	// rest are counted in one summary line ("… and N more findings in
	// FILE"). 0 prints every finding. The machine-readable formats always
	// carry every finding.
	MaxPerFile int
}

// DefaultMaxPerFile is the findings per file the text format prints unless
// told otherwise.
const DefaultMaxPerFile = 100

// frameContext is how much of a long line a code frame shows on each side
// of the span (in bytes, widened to whole characters); a line longer than
// maxFrameLine is clipped to that window, marked with "…".
const (
	frameContext = 60
	maxFrameLine = 2*frameContext + 40
)

// Write prints findings in format (one of Formats).
func Write(w io.Writer, format string, fs []Finding, opts Options) error {
	if opts.Tool == "" {
		opts.Tool = "ctxql"
	}
	switch format {
	case "", "text":
		return writeText(w, fs, opts.MaxPerFile)
	case "json":
		return writeJSON(w, fs)
	case "sarif":
		return writeSARIF(w, fs, opts)
	case "github":
		return writeGitHub(w, fs)
	case "junit":
		return writeJUnit(w, fs, opts)
	}
	return fmt.Errorf("unknown report format %q (want %s)", format, strings.Join(Formats, ", "))
}

// SeverityName is the severity as the JSON report spells it: error,
// warning or info (hints are reported as info).
func SeverityName(s syntax.Severity) string {
	switch s {
	case syntax.SeverityError:
		return "error"
	case syntax.SeverityWarning:
		return "warning"
	}
	return "info"
}

func writeText(w io.Writer, fs []Finding, maxPerFile int) error {
	var errs, warns int
	shown, hidden := 0, 0 // of the current file
	for i, x := range fs {
		if i == 0 || x.Path != fs[i-1].Path {
			shown, hidden = 0, 0
		}
		s := x.File.Position(x.Diag.Span.Start)
		sev := SeverityName(x.Diag.Severity)
		switch sev {
		case "error":
			errs++
		case "warning":
			warns++
		}
		fix := ""
		if x.Fixable {
			fix = " (fixable)"
		}
		if maxPerFile > 0 && shown >= maxPerFile {
			hidden++
		} else {
			shown++
			if _, err := fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]%s\n", x.Path, s.Line, s.Column, sev, x.Diag.Message, x.Diag.Code, fix); err != nil {
				return err
			}
			writeFrame(w, x.File, x.Diag.Span)
		}
		if hidden > 0 && (i == len(fs)-1 || fs[i+1].Path != x.Path) {
			if _, err := fmt.Fprintf(w, "… and %d more finding(s) in %s (print them with --max-findings 0)\n", hidden, x.Path); err != nil {
				return err
			}
		}
	}
	if len(fs) > 0 {
		_, err := fmt.Fprintf(w, "%d error(s), %d warning(s)\n", errs, warns)
		return err
	}
	return nil
}

// writeFrame prints the source line of span and a caret line under it;
// tabs in the padding stay tabs so the caret lines up, and a span that runs
// past its first line is underlined to the end of that line. A line longer
// than maxFrameLine is clipped to frameContext bytes around the span (and
// a long span to its first frameContext bytes), with "…" where text was
// left out, so a frame's size does not grow with the line's.
func writeFrame(w io.Writer, f *syntax.File, sp syntax.Span) {
	line := f.LineOf(sp.Start)
	start := f.LineStart(line)
	text := strings.TrimRight(f.Line(line), "\r\n")
	end := sp.End
	if end > start+len(text) {
		end = start + len(text)
	}
	from := min(sp.Start-start, len(text))
	if len(text) > maxFrameLine {
		// Work in offsets within the line from here on.
		to := min(max(end-start, from), from+frameContext)
		lo := runeStart(text, max(from-frameContext, 0))
		hi := runeStart(text, min(to+frameContext, len(text)))
		head, tail := "", ""
		if lo > 0 {
			head = "…"
		}
		if hi < len(text) {
			tail = "…"
		}
		text = head + text[lo:hi] + tail
		from = from - lo + len(head)
		start, end = 0, min(to, hi)-lo+len(head)
	}
	var pad strings.Builder
	for _, r := range text[:from] {
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	width := len([]rune(text[from:max(end-start, from)]))
	marks := "^" + strings.Repeat("~", max(width-1, 0))
	fmt.Fprintf(w, "  %s\n  %s%s\n", text, pad.String(), marks)
}

// runeStart moves i back to the start of the UTF-8 sequence it is in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// JSONFinding is one finding as the JSON format prints it: 1-based lines,
// 1-based UTF-8 byte columns, end exclusive.
type JSONFinding struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Fixable   bool   `json:"fixable"`
}

// JSON returns the findings as the JSON format prints them.
func JSON(fs []Finding) []JSONFinding {
	out := make([]JSONFinding, 0, len(fs))
	for _, x := range fs {
		s, e := x.File.Position(x.Diag.Span.Start), x.File.Position(x.Diag.Span.End)
		out = append(out, JSONFinding{File: x.Path, Line: s.Line, Column: s.Column, EndLine: e.Line, EndColumn: e.Column,
			Severity: SeverityName(x.Diag.Severity), Code: x.Diag.Code, Message: x.Diag.Message, Fixable: x.Fixable})
	}
	return out
}

func writeJSON(w io.Writer, fs []Finding) error {
	b, err := jsonenc.MarshalIndent(JSON(fs), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// sarifLevel maps a severity to a SARIF result level.
func sarifLevel(s syntax.Severity) string {
	switch s {
	case syntax.SeverityError:
		return "error"
	case syntax.SeverityWarning:
		return "warning"
	}
	return "note"
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string     `json:"id"`
	Name             string     `json:"name,omitempty"`
	ShortDescription *sarifText `json:"shortDescription,omitempty"`
	HelpURI          string     `json:"helpUri,omitempty"`
	Default          struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	Physical struct {
		Artifact struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region sarifRegion `json:"region"`
	} `json:"physicalLocation"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

// writeSARIF prints a SARIF 2.1.0 log with one run. Columns are 1-based
// UTF-16 code units (the SARIF default, declared in columnKind); paths are
// relative URIs with forward slashes.
func writeSARIF(w io.Writer, fs []Finding, opts Options) error {
	run := sarifRun{ColumnKind: "utf16CodeUnits", Results: []sarifResult{}}
	run.Tool.Driver = sarifDriver{Name: opts.Tool, Version: opts.Version, InformationURI: "https://ctxql.dev", Rules: []sarifRule{}}
	index := map[string]int{}
	level := map[string]string{} // a code's level when the rule has no metadata
	codes := make([]string, 0, len(fs))
	for _, x := range fs {
		if _, ok := index[x.Diag.Code]; !ok {
			index[x.Diag.Code] = -1
			level[x.Diag.Code] = sarifLevel(x.Diag.Severity)
			codes = append(codes, x.Diag.Code)
		}
	}
	sort.Strings(codes)
	for i, c := range codes {
		index[c] = i
		r := sarifRule{ID: c}
		r.Default.Level = level[c]
		if meta, ok := opts.Rules[c]; ok {
			r.Name, r.HelpURI = meta.Name, meta.HelpURI
			if meta.Summary != "" {
				r.ShortDescription = &sarifText{meta.Summary}
			}
			r.Default.Level = sarifLevel(meta.Severity)
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
	}
	cols := columnsOf()
	for _, x := range fs {
		c := cols(x.File)
		sl, _, sc := c.at(x.Diag.Span.Start)
		el, _, ec := c.at(x.Diag.Span.End)
		res := sarifResult{RuleID: x.Diag.Code, RuleIndex: index[x.Diag.Code], Level: sarifLevel(x.Diag.Severity), Message: sarifText{x.Diag.Message}}
		var loc sarifLocation
		loc.Physical.Artifact.URI = uriPath(x.Path)
		loc.Physical.Region = sarifRegion{StartLine: sl + 1, StartColumn: sc + 1, EndLine: el + 1, EndColumn: ec + 1}
		res.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, res)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	b, err := jsonenc.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// uriPath turns a file path into a relative URI reference, or, for a path
// with a Windows volume (a drive letter or a UNC share), a file: URI.
func uriPath(p string) string {
	if filepath.VolumeName(p) != "" {
		return fileuri.FromPath(p)
	}
	p = strings.ReplaceAll(p, "\\", "/")
	p = strings.TrimPrefix(p, "./")
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x21 || c >= 0x7f || strings.IndexByte("%#?[]<>\"{}|^`", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// writeGitHub prints GitHub Actions workflow commands that annotate the
// lines of a pull request. Columns are 1-based characters.
func writeGitHub(w io.Writer, fs []Finding) error {
	cols := columnsOf()
	for _, x := range fs {
		c := cols(x.File)
		sl, sc, _ := c.at(x.Diag.Span.Start)
		el, ec, _ := c.at(x.Diag.Span.End)
		level := "notice"
		switch x.Diag.Severity {
		case syntax.SeverityError:
			level = "error"
		case syntax.SeverityWarning:
			level = "warning"
		}
		_, err := fmt.Fprintln(w, ghcmd.Annotation{Level: level, File: x.Path, Line: sl + 1, Column: sc + 1,
			EndLine: el + 1, EndColumn: ec + 1, Title: x.Diag.Code, Message: x.Diag.Message + " [" + x.Diag.Code + "]"})
		if err != nil {
			return err
		}
	}
	return nil
}

// columnsOf returns a function giving the column index of a file, made
// once per file.
func columnsOf() func(*syntax.File) *columns {
	byFile := map[*syntax.File]*columns{}
	return func(f *syntax.File) *columns {
		c, ok := byFile[f]
		if !ok {
			c = newColumns(f)
			byFile[f] = c
		}
		return c
	}
}

// Diff returns a unified diff turning before into after for the file at
// path ("a/path" and "b/path" headers), or "" when they are equal.
func Diff(path, before, after string) string {
	if before == after {
		return ""
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(before), B: lines(after),
		FromFile: "a/" + strings.TrimPrefix(path, "./"), ToFile: "b/" + strings.TrimPrefix(path, "./"),
		Context: 3,
	})
	if err != nil {
		return ""
	}
	return text
}

// lines splits text into lines that keep their newline; a last line
// without one is marked the way diff(1) marks it.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		return l[:len(l)-1]
	}
	l[len(l)-1] += "\n\\ No newline at end of file\n"
	return l
}
