package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/lang"
)

// newEvalDatalogCmd builds "ctxql eval datalog".
func newEvalDatalogCmd(env Env) *cobra.Command {
	var dataPath, rulesPath, engineURL string
	var relations []string
	var lim datalogLimits
	var timed bool
	cmd := &cobra.Command{
		Use:   "datalog (--data FILE RULE | [--data FILE] --rules FILE)",
		Short: "Evaluate a Datalog rule or program",
		Long: `Evaluate a Datalog query rule in Ascent syntax, e.g.
  ctxql eval datalog --data data.json 'q(r) <-- path("a", r), !rw_proc(r, _)'
and print its head tuples as a JSON array of arrays of strings.

With --rules FILE the whole program in FILE (rules, facts, recursive rules,
stratified negation, "relation" declarations) is evaluated and every derived
relation is printed as a JSON object: relation name -> array of tuples.
--relations a,b prints the named relations only, those of the data
included. A program whose facts are all in it needs no --data.

--data is a JSON file {"relations": {NAME: {"param_types": [...], "tuples": [[...]]}}}
or a directory of NAME.facts tab-separated files with "relation NAME(T1, ...)"
declarations in its .dl files.

--why 'q("a", "b")' prints how the program derives that tuple: the rule
that derived it, the body tuples it joined (each with its own proof, to
--why-depth levels) and the negations and conditions that held.
--why-not 'q("a", "z")' names, for each rule of q, the first body atom or
condition that nothing satisfies. Both work with --rules FILE or a RULE.

Every evaluation is bounded by --max-tuples (intermediate join results and
derived tuples) and --timeout. With --engine URL the database evaluates
(see docs/sql.md): --timeout bounds it, and --max-tuples, --relations,
--why, --why-not and --profile are refused.

Exit status: 0 on success, 1 when the rule has parse or check errors
("line:col: message" on stderr) or the tuple given to --why is not derived
(or the one given to --why-not is), 2 on usage errors or unreadable data.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			rule := ""
			if len(args) == 1 {
				rule = args[0]
			}
			ctx, cancel, err := evalTimeout(c.Context(), "datalog", lim.timeout)
			defer cancel()
			if err != nil {
				return err
			}
			ctx, stop := startTiming(ctx, timed, env.Stderr)
			defer stop()
			if engineURL != "" {
				// The database evaluates: the in-process budget and the
				// choice of printed relations have no meaning there, and
				// are refused rather than ignored.
				for _, f := range []string{"max-tuples", "relations"} {
					if c.Flags().Changed(f) {
						return Usagef("ctxql eval datalog: --%s applies to the in-process evaluation; it does not take --engine (--timeout bounds the database's)", f)
					}
				}
				return runEngineDatalog(ctx, env, engineURL, dataPath, rulesPath, rule, len(args) == 1, lim)
			}
			if lim.why != "" || lim.whyNot != "" || lim.profile {
				return explainDatalog(ctx, env, dataPath, rulesPath, rule, len(args) == 1, lim)
			}
			if len(relations) > 0 && rulesPath == "" {
				return Usagef("ctxql eval datalog: --relations takes --rules FILE")
			}
			return evalDatalog(ctx, env, dataPath, rulesPath, rule, len(args) == 1, relations, lim.budget())
		},
	}
	cmd.Flags().StringVar(&dataPath, "data", "", "data: a JSON file or a facts directory (required with a RULE)")
	cmd.Flags().StringVar(&rulesPath, "rules", "", "evaluate the whole program in this .dl file")
	cmd.Flags().StringSliceVar(&relations, "relations", nil, "with --rules: print only these relations (comma-separated; the data's included)")
	cmd.Flags().StringVar(&lim.why, "why", "", "print the proof tree of this tuple, e.g. 'q(\"a\", \"b\")'")
	cmd.Flags().StringVar(&lim.whyNot, "why-not", "", "name, for each rule of the tuple's relation, the first body item that fails")
	cmd.Flags().IntVar(&lim.whyDepth, "why-depth", lang.DefaultExplainDepth, "levels of the --why proof tree")
	cmd.Flags().BoolVar(&lim.profile, "profile", false, "print, for each rule, the tuples it derived and the time it took, and the slowest rules")
	cmd.Flags().IntVar(&lim.maxTuples, "max-tuples", lang.DefaultMaxTuples, "budget of intermediate and derived tuples (0: no limit)")
	cmd.Flags().DurationVar(&lim.timeout, "timeout", 0, "time limit of the evaluation (0: none)")
	addTimingFlag(cmd, &timed)
	engineFlag(cmd, &engineURL)
	return cmd
}

// datalogLimits holds the explanation and budget flags.
type datalogLimits struct {
	why, whyNot string
	profile     bool
	whyDepth    int
	maxTuples   int
	timeout     time.Duration
}

func (l datalogLimits) budget() lang.Budget {
	if l.maxTuples <= 0 {
		return lang.Budget{MaxTuples: -1}
	}
	return lang.Budget{MaxTuples: l.maxTuples}
}

// datalogLang is the Datalog row of the language table.
func datalogLang() *lang.Language { return lang.ByID(lang.Datalog) }

// evalError maps an evaluation error (the budget exceeded, the deadline
// passed) to a failure of the query: exit 1 with its message.
func evalError(err error) error {
	return Failf("%w", limitError(err, "--max-tuples"))
}

// datalogQuery reads the program of --rules FILE, or takes the RULE
// argument.
func datalogQuery(ctx context.Context, rulesPath, rule string, haveRule, program bool) (lang.Query, error) {
	if haveRule == (rulesPath != "") {
		return lang.Query{}, Usagef("ctxql eval datalog: give either a RULE argument or --rules FILE")
	}
	if haveRule {
		return lang.Query{Name: "rule", Src: rule}, nil
	}
	b, err := sourceFiles(ctx).ReadFile(rulesPath)
	if err != nil {
		return lang.Query{}, Usagef("read rules: %w", err)
	}
	return lang.Query{Name: rulesPath, Src: string(b), Program: program}, nil
}

// explainDatalog answers --why and --why-not.
func explainDatalog(ctx context.Context, env Env, dataPath, rulesPath, rule string, haveRule bool, lim datalogLimits) error {
	if haveRule == (rulesPath != "") {
		return Usagef("ctxql eval datalog: give either a RULE argument or --rules FILE")
	}
	if (lim.why != "") == (lim.whyNot != "") && (lim.why != "" || !lim.profile) || lim.profile && lim.why+lim.whyNot != "" {
		return Usagef("ctxql eval datalog: give one of --why, --why-not and --profile")
	}
	if tuple := lim.why + lim.whyNot; tuple != "" {
		if err := lang.CheckTuple(tuple); err != nil {
			return Usagef("%w", err)
		}
	}
	db, err := loadDatalogData(ctx, dataPath, !haveRule, true)
	if err != nil {
		return err
	}
	q, err := datalogQuery(ctx, rulesPath, rule, haveRule, true)
	if err != nil {
		return err
	}
	x, err := datalogLang().Explain(ctx, db, q, lang.Explain{Why: lim.why, WhyNot: lim.whyNot, Depth: lim.whyDepth, Budget: lim.budget(), Profile: lim.profile})
	if err != nil {
		return evalError(err)
	}
	prefix := rulesPath + ":"
	if haveRule {
		prefix = ""
	}
	if err := reportInvalid(env.Stderr, prefix, x.File, x.Diagnostics); err != nil {
		return err
	}
	if x.NotDerived {
		fmt.Fprintf(env.Stderr, "%s; see --why-not\n", x.Summary)
		return &ExitError{Code: ExitFindings}
	}
	if err := x.Format(env.Stdout); err != nil {
		return err
	}
	if x.Holds {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// loadDatalogData loads --data; a program (optional set) without it
// runs over no data. Data that serves one evaluation (once set: a
// command that evaluates and exits) is loaded by LoadOnce, without
// keeping the file's text.
func loadDatalogData(ctx context.Context, path string, optional, once bool) (lang.Data, error) {
	if path == "" && optional {
		db, err := datalogLang().LoadBytes(ctx, "no data", []byte(`{"relations": {}}`))
		if err != nil {
			return nil, loadFailed("", err)
		}
		return db, nil
	}
	if path == "" {
		return nil, Usagef("--data is required")
	}
	load := datalogLang().Load
	if once {
		load = datalogLang().LoadOnce
	}
	db, err := load(ctx, dataFiles(ctx), path)
	if err != nil {
		return nil, loadFailed("", err)
	}
	markLoaded(ctx)
	return db, nil
}

func evalDatalog(ctx context.Context, env Env, dataPath, rulesPath, rule string, haveRule bool, relations []string, b lang.Budget) error {
	if haveRule == (rulesPath != "") {
		return Usagef("ctxql eval datalog: give either a RULE argument or --rules FILE")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := loadDatalogData(ctx, dataPath, !haveRule, true)
	if err != nil {
		return err
	}
	q, err := datalogQuery(ctx, rulesPath, rule, haveRule, true)
	if err != nil {
		return err
	}
	q.Relations = relations
	// Results stream to the output: millions of tuples are written
	// without building them as strings first.
	q.Stream = true
	res, err := datalogLang().Evaluate(ctx, db, q, b)
	markEvaluated(ctx)
	if err != nil {
		return evalError(err)
	}
	prefix := rulesPath + ":"
	if haveRule {
		prefix = ""
	}
	if err := reportInvalid(env.Stderr, prefix, res.File, res.Diagnostics); err != nil {
		return err
	}
	return res.Print(env.Stdout)
}
