package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/syntax"
	dlsyn "github.com/ctxql/ctxql/syntax/datalog"
	"github.com/spf13/cobra"
)

// newEvalDatalogCmd builds "ctxql eval datalog".
func newEvalDatalogCmd(env Env) *cobra.Command {
	var dataPath, rulesPath string
	var lim datalogLimits
	cmd := &cobra.Command{
		Use:   "datalog --data FILE (RULE | --rules FILE)",
		Short: "Evaluate a Datalog rule or program",
		Long: `Evaluate a Datalog query rule in Ascent syntax, e.g.
  ctxql eval datalog --data data.json 'q(r) <-- path("a", r), !rw_proc(r, _)'
and print its head tuples as a JSON array of arrays of strings.

With --rules FILE the whole program in FILE (rules, facts, recursive rules,
stratified negation, "relation" declarations) is evaluated and every derived
relation is printed as a JSON object: relation name -> array of tuples.

--data is a JSON file {"relations": {NAME: {"param_types": [...], "tuples": [[...]]}}}
or a directory of NAME.facts tab-separated files with "relation NAME(T1, ...)"
declarations in its .dl files.

--why 'q("a", "b")' prints how the program derives that tuple: the rule
that derived it, the body tuples it joined (each with its own proof, to
--why-depth levels) and the negations and conditions that held.
--why-not 'q("a", "z")' names, for each rule of q, the first body atom or
condition that nothing satisfies. Both work with --rules FILE or a RULE.

Every evaluation is bounded by --max-tuples (intermediate join results and
derived tuples) and --timeout.

Exit status: 0 on success, 1 when the rule has parse or check errors
("line:col: message" on stderr) or the tuple given to --why is not derived
(or the one given to --why-not is), 2 on usage errors or unreadable data.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			rule := ""
			if len(args) == 1 {
				rule = args[0]
			}
			ctx := c.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if lim.timeout < 0 {
				return Usagef("ctxql eval datalog: --timeout must not be negative")
			}
			if lim.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, lim.timeout)
				defer cancel()
			}
			if lim.why != "" || lim.whyNot != "" {
				return explainDatalog(ctx, env, dataPath, rulesPath, rule, len(args) == 1, lim)
			}
			return evalDatalog(ctx, env, dataPath, rulesPath, rule, len(args) == 1, lim.options())
		},
	}
	cmd.Flags().StringVar(&dataPath, "data", "", "data: a JSON file or a facts directory (required)")
	cmd.Flags().StringVar(&rulesPath, "rules", "", "evaluate the whole program in this .dl file")
	cmd.Flags().StringVar(&lim.why, "why", "", "print the proof tree of this tuple, e.g. 'q(\"a\", \"b\")'")
	cmd.Flags().StringVar(&lim.whyNot, "why-not", "", "name, for each rule of the tuple's relation, the first body item that fails")
	cmd.Flags().IntVar(&lim.whyDepth, "why-depth", datalog.DefaultExplainDepth, "levels of the --why proof tree")
	cmd.Flags().IntVar(&lim.maxTuples, "max-tuples", datalog.DefaultMaxTuples, "budget of intermediate and derived tuples (0: no limit)")
	cmd.Flags().DurationVar(&lim.timeout, "timeout", 0, "time limit of the evaluation (0: none)")
	return cmd
}

// datalogLimits holds the explanation and budget flags.
type datalogLimits struct {
	why, whyNot string
	whyDepth    int
	maxTuples   int
	timeout     time.Duration
}

func (l datalogLimits) options() datalog.Options {
	if l.maxTuples <= 0 {
		return datalog.Options{MaxTuples: -1}
	}
	return datalog.Options{MaxTuples: l.maxTuples}
}

// evalError maps an evaluation error (the budget exceeded, the deadline
// passed) to a failure of the query: exit 1 with its message.
func evalError(err error) error {
	return Failf("%w", err)
}

// explainDatalog answers --why and --why-not.
func explainDatalog(ctx context.Context, env Env, dataPath, rulesPath, rule string, haveRule bool, lim datalogLimits) error {
	if haveRule == (rulesPath != "") {
		return Usagef("ctxql eval datalog: give either a RULE argument or --rules FILE")
	}
	if lim.why != "" && lim.whyNot != "" {
		return Usagef("ctxql eval datalog: give --why or --why-not, not both")
	}
	q := lim.why
	if q == "" {
		q = lim.whyNot
	}
	rel, vals, err := datalog.ParseTuple(q)
	if err != nil {
		return Usagef("%w", err)
	}
	db, err := loadDatalogData(ctx, dataPath)
	if err != nil {
		return err
	}
	name, src := "rule", rule
	if !haveRule {
		b, err := sourceFiles(ctx).ReadFile(rulesPath)
		if err != nil {
			return Usagef("read rules: %w", err)
		}
		name, src = rulesPath, string(b)
	}
	prog := dlsyn.ParseProgram(name, src)
	info := dlsyn.Check(prog, db.Schema())
	ds := append(slices.Clone(prog.Diagnostics), info.Diagnostics...)
	syntax.SortDiagnostics(ds)
	prefix := rulesPath + ":"
	if haveRule {
		prefix = ""
	}
	if printDiagnostics(env.Stderr, prefix, prog.File, ds) {
		return &ExitError{Code: ExitFindings}
	}
	x, err := datalog.NewExplainer(ctx, db, prog, info, datalog.ExplainOptions{Options: lim.options(), MaxDepth: lim.whyDepth})
	if err != nil {
		return evalError(err)
	}
	if lim.why != "" {
		p, err := x.Why(ctx, rel, vals)
		if errors.Is(err, datalog.ErrNotDerived) {
			fmt.Fprintf(env.Stderr, "%v; see --why-not\n", err)
			return &ExitError{Code: ExitFindings}
		}
		if err != nil {
			return evalError(err)
		}
		return p.Format(env.Stdout, prog.File)
	}
	w, err := x.WhyNot(ctx, rel, vals)
	if err != nil {
		return evalError(err)
	}
	if err := w.Format(env.Stdout, prog.File); err != nil {
		return err
	}
	if w.Holds {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

func loadDatalogData(ctx context.Context, path string) (*datalog.DB, error) {
	if path == "" {
		return nil, Usagef("--data is required")
	}
	db, err := datalog.LoadPathFrom(dataFiles(ctx), path)
	if err != nil {
		return nil, Usagef("%w", err)
	}
	return db, nil
}

// printDiagnostics writes each diagnostic as "[prefix]line:col: message"
// (warnings and hints marked as such) and reports whether any is an error.
func printDiagnostics(w io.Writer, prefix string, f *syntax.File, ds []syntax.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == syntax.SeverityError {
			fmt.Fprintf(w, "%s%s\n", prefix, d.Format(f))
		} else {
			fmt.Fprintf(w, "%s%s: %s: %s\n", prefix, f.Position(d.Span.Start), d.Severity, d.Message)
		}
	}
	return syntax.HasErrors(ds)
}

func evalDatalog(ctx context.Context, env Env, dataPath, rulesPath, rule string, haveRule bool, opts datalog.Options) error {
	if haveRule == (rulesPath != "") {
		return Usagef("ctxql eval datalog: give either a RULE argument or --rules FILE")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := loadDatalogData(ctx, dataPath)
	if err != nil {
		return err
	}
	if haveRule {
		res, rows, err := datalog.EvalRuleRows(ctx, db, rule, opts)
		if err != nil {
			return evalError(err)
		}
		if printDiagnostics(env.Stderr, "", syntax.NewFile("rule", rule), res.Diagnostics) {
			return &ExitError{Code: ExitFindings}
		}
		return writeLine(env.Stdout, rows.WriteJSON)
	}
	src, err := sourceFiles(ctx).ReadFile(rulesPath)
	if err != nil {
		return Usagef("read rules: %w", err)
	}
	res, rels, err := datalog.EvalProgramRows(ctx, db, rulesPath, string(src), opts)
	if err != nil {
		return evalError(err)
	}
	if printDiagnostics(env.Stderr, rulesPath+":", res.Program.File, res.Diagnostics) {
		return &ExitError{Code: ExitFindings}
	}
	return writeLine(env.Stdout, func(w io.Writer) error { return datalog.WriteRelationsJSON(w, rels) })
}

// writeLine writes what write writes to w, then a newline.
func writeLine(w io.Writer, write func(io.Writer) error) error {
	if err := write(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
