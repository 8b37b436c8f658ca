package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// checkFlags are the flags of "ctxql check" and "ctxql fix".
type checkFlags struct {
	fix, unsafe   bool
	format        string
	stdinFilename string
}

// NewCheckCommand returns "ctxql check"; cmd/lint runs the same command.
func NewCheckCommand(env Env) *cobra.Command {
	cmd := newCheckCmd(env, false)
	cmd.Use = "lint [flags] PATH...|-"
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd
}

func newCheckCmd(env Env, fix bool) *cobra.Command {
	f := &checkFlags{fix: fix}
	use, short := "check [flags] PATH...|-", "Lint PACT, JQL, Datalog and Markdown files"
	if fix {
		use, short = "fix [flags] PATH...|-", "Apply safe fixes to PACT, JQL, Datalog and Markdown files (check --fix)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + ".\n\nDirectories are walked for .pact, .jql, .jql.json, .jql.yaml, .jql.yml, .dl and .md files; " +
			"\"-\" reads standard input (named by --stdin-filename). Exit status: 0 when no error-severity finding remains, " +
			"1 when one does, 2 on usage or I/O errors.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), env, f, args)
		},
	}
	if !fix {
		cmd.Flags().BoolVar(&f.fix, "fix", false, "apply safe fixes in place")
	}
	cmd.Flags().BoolVar(&f.unsafe, "unsafe-fixes", false, "also apply fixes that may change a query's meaning")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&f.stdinFilename, "stdin-filename", "stdin.pact", "file name that decides the language of standard input")
	return cmd
}

// finding is one diagnostic of one file.
type finding struct {
	path    string
	file    *syntax.File
	diag    syntax.Diagnostic
	fixable bool
}

func runCheck(ctx context.Context, env Env, f *checkFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.format != "text" && f.format != "json" {
		return Usagef("check: unknown --format %q (want text or json)", f.format)
	}
	l, err := lint.New(pact.DialectUnset)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	var all []finding
	for _, arg := range args {
		if arg == "-" {
			src, err := io.ReadAll(env.Stdin)
			if err != nil {
				return Usagef("check: read standard input: %w", err)
			}
			fs, err := checkSource(ctx, env, l, f, f.stdinFilename, string(src), true)
			if err != nil {
				return err
			}
			all = append(all, fs...)
			continue
		}
		paths, err := collect(arg)
		if err != nil {
			return Usagef("check: %w", err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return Usagef("check: %w", err)
			}
			fs, err := checkSource(ctx, env, l, f, p, string(b), false)
			if err != nil {
				return err
			}
			all = append(all, fs...)
		}
	}
	if err := writeFindings(env.Stdout, f.format, all); err != nil {
		return err
	}
	for _, x := range all {
		if x.diag.Severity == syntax.SeverityError {
			return &ExitError{Code: ExitFindings}
		}
	}
	return nil
}

// checkSource lints (and with --fix, fixes) one source. Fixed stdin goes to
// stdout; a fixed file is rewritten atomically, and only when it changed.
func checkSource(ctx context.Context, env Env, l *lint.Linter, f *checkFlags, name, src string, stdin bool) ([]finding, error) {
	var diags []syntax.Diagnostic
	var file *syntax.File
	if f.fix {
		out, remaining, err := l.Fix(ctx, name, src, f.unsafe)
		if errors.Is(err, lint.ErrUnsupported) {
			return nil, Usagef("check: %w", err)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "ctxql: %v\n", err)
		}
		if out != src {
			if stdin {
				if _, err := io.WriteString(env.Stdout, out); err != nil {
					return nil, err
				}
			} else if err := writeAtomic(name, []byte(out)); err != nil {
				return nil, Usagef("check: %w", err)
			}
		}
		file, diags = syntax.NewFile(name, out), remaining
	} else {
		var err error
		file, diags, err = l.Check(ctx, name, src)
		if errors.Is(err, lint.ErrUnsupported) {
			return nil, Usagef("check: %w", err)
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]finding, 0, len(diags))
	for _, d := range diags {
		out = append(out, finding{path: name, file: file, diag: d, fixable: lint.Fixable(d, f.unsafe)})
	}
	return out, nil
}

// collect expands a path: a file as itself (whatever its name), a directory
// into the files below it that ctxql checks, sorted; .git and node_modules
// are skipped.
func collect(root string) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{root}, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if lint.Language(p) != "" {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename, keeping the file's mode.
func writeAtomic(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".ctxql-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// jsonFinding is the --format json shape: 1-based lines, 1-based UTF-8 byte
// columns, end exclusive.
type jsonFinding struct {
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

func severityName(s syntax.Severity) string {
	switch s {
	case syntax.SeverityError:
		return "error"
	case syntax.SeverityWarning:
		return "warning"
	}
	return "info"
}

func writeFindings(w io.Writer, format string, fs []finding) error {
	if format == "json" {
		out := make([]jsonFinding, 0, len(fs))
		for _, x := range fs {
			s, e := x.file.Position(x.diag.Span.Start), x.file.Position(x.diag.Span.End)
			out = append(out, jsonFinding{File: x.path, Line: s.Line, Column: s.Column, EndLine: e.Line, EndColumn: e.Column,
				Severity: severityName(x.diag.Severity), Code: x.diag.Code, Message: x.diag.Message, Fixable: x.fixable})
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var errs, warns int
	for _, x := range fs {
		s := x.file.Position(x.diag.Span.Start)
		sev := severityName(x.diag.Severity)
		switch sev {
		case "error":
			errs++
		case "warning":
			warns++
		}
		fix := ""
		if x.fixable {
			fix = " (fixable)"
		}
		fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]%s\n", x.path, s.Line, s.Column, sev, x.diag.Message, x.diag.Code, fix)
		writeFrame(w, x.file, x.diag.Span)
	}
	if len(fs) > 0 {
		fmt.Fprintf(w, "%d error(s), %d warning(s)\n", errs, warns)
	}
	return nil
}

// writeFrame prints the source line of span and a caret line under it;
// tabs in the padding stay tabs so the caret lines up, and a span that runs
// past its first line is underlined to the end of that line.
func writeFrame(w io.Writer, f *syntax.File, sp syntax.Span) {
	line := f.LineOf(sp.Start)
	start := f.LineStart(line)
	text := strings.TrimRight(f.Line(line), "\r\n")
	end := sp.End
	if end > start+len(text) {
		end = start + len(text)
	}
	var pad strings.Builder
	for _, r := range text[:min(sp.Start-start, len(text))] {
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	width := len([]rune(text[min(sp.Start-start, len(text)):max(end-start, min(sp.Start-start, len(text)))]))
	marks := "^" + strings.Repeat("~", max(width-1, 0))
	fmt.Fprintf(w, "  %s\n  %s%s\n", text, pad.String(), marks)
}

// newFixCmd is "ctxql fix", the same as "ctxql check --fix".
func newFixCmd(env Env) *cobra.Command { return newCheckCmd(env, true) }

// newRulesCmd is "ctxql rules" and "ctxql rules explain CODE".
func newRulesCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the analysis rules",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			reg, err := lint.All()
			if err != nil {
				return err
			}
			for _, a := range reg.All() {
				fmt.Fprintf(env.Stdout, "%-8s %-26s %-9s %-7s fix:%-6s %s\n", a.Code, a.Name, a.Language, a.Severity, a.Fix, a.Doc.Summary)
			}
			return nil
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "explain CODE|NAME",
		Short: "Print a rule's documentation",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			reg, err := lint.All()
			if err != nil {
				return err
			}
			a, ok := reg.Lookup(args[0])
			if !ok {
				return Usagef("rules explain: no rule %q", args[0])
			}
			_, err = io.WriteString(env.Stdout, lint.RuleDoc(a))
			return err
		},
	})
	return cmd
}
