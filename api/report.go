package api

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/report"
	"github.com/ctxql/ctxql/syntax"
)

// ReportOptions describes the linter's rules for the machine-readable
// reports of `ctxql check`, of the build version.
func ReportOptions(l *lint.Linter, version string, files []string) report.Options {
	rules := map[string]report.Rule{}
	for _, a := range l.Registry().All() {
		rules[a.Code] = report.Rule{Code: a.Code, Name: a.Name, Summary: a.Doc.Summary, HelpURI: lint.RuleURL(a.Code), Severity: a.Severity}
	}
	return report.Options{Version: version, Rules: rules, Files: files}
}

// ReportParams are the parameters of report.
type ReportParams struct {
	Files []ReportFile `json:"files"`
	// Format is an output format of `ctxql check --format` (default text).
	Format  string `json:"format,omitempty"`
	Dialect string `json:"dialect,omitempty"`
	// MaxFindings is --max-findings: the findings per file the text
	// format prints (nil: 100, 0: all).
	MaxFindings *int `json:"maxFindings,omitempty"`
}

// ReportFile is one text to check, named by its path, with its sample
// data (as check's).
type ReportFile struct {
	Path string  `json:"path"`
	Text string  `json:"text"`
	Data *string `json:"data,omitempty"`
}

// Report is the result of report.
type Report struct {
	// Output is what `ctxql check --format FORMAT` prints.
	Output string `json:"output"`
	// Errors says whether a finding is an error (check exits 1).
	Errors bool `json:"errors"`
}

// Report checks texts and prints their findings as `ctxql check` does (no
// configuration file applies).
func (s *Session) Report(ctx context.Context, p ReportParams) (*Report, error) {
	if p.Format == "" {
		p.Format = "text"
	}
	if !slices.Contains(report.Formats, p.Format) {
		return nil, usagef("unknown format %q (want %s)", p.Format, strings.Join(report.Formats, ", "))
	}
	d, aerr := dialect(p.Dialect)
	if aerr != nil {
		return nil, aerr
	}
	l, err := lint.New(d)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	var all []report.Finding
	var files []string
	for _, f := range p.Files {
		if _, _, aerr := textName("", f.Path); aerr != nil {
			return nil, aerr
		}
		file, diags, err := withData(ctx, l, f.Data).Check(ctx, f.Path, f.Text)
		if err != nil {
			return nil, evalError(err, "")
		}
		for _, d := range diags {
			all = append(all, report.Finding{Path: f.Path, File: file, Diag: d, Fixable: lint.Fixable(d, false)})
		}
		files = append(files, f.Path)
	}
	opts := ReportOptions(l, s.version, files)
	opts.MaxPerFile = report.DefaultMaxPerFile
	if p.MaxFindings != nil {
		opts.MaxPerFile = *p.MaxFindings
	}
	var out bytes.Buffer
	if err := report.Write(&out, p.Format, all, opts); err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	r := &Report{Output: out.String()}
	for _, x := range all {
		r.Errors = r.Errors || x.Diag.Severity == syntax.SeverityError
	}
	return r, nil
}
