package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/syntax"
	"github.com/spf13/cobra"
)

// newEvalDatalogCmd builds "ctxql eval datalog".
func newEvalDatalogCmd(env Env) *cobra.Command {
	var dataPath, rulesPath string
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

Exit status: 0 on success, 1 when the rule has parse or check errors
("line:col: message" on stderr), 2 on usage errors or unreadable data.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			rule := ""
			if len(args) == 1 {
				rule = args[0]
			}
			return evalDatalog(c.Context(), env, dataPath, rulesPath, rule, len(args) == 1)
		},
	}
	cmd.Flags().StringVar(&dataPath, "data", "", "data: a JSON file or a facts directory (required)")
	cmd.Flags().StringVar(&rulesPath, "rules", "", "evaluate the whole program in this .dl file")
	return cmd
}

func loadDatalogData(ctx context.Context, path string) (*datalog.DB, error) {
	if path == "" {
		return nil, Usagef("--data is required")
	}
	d, err := datalog.ReadDataPathFrom(dataFiles(ctx), path)
	if err != nil {
		return nil, Usagef("%w", err)
	}
	db, err := datalog.Load(d)
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

func evalDatalog(ctx context.Context, env Env, dataPath, rulesPath, rule string, haveRule bool) error {
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
	var out any
	if haveRule {
		res, err := datalog.EvalRule(ctx, db, rule)
		if err != nil {
			return Failf("%w", err)
		}
		if printDiagnostics(env.Stderr, "", syntax.NewFile("rule", rule), res.Diagnostics) {
			return &ExitError{Code: ExitFindings}
		}
		out = nonNil(res.Tuples)
	} else {
		src, err := sourceFiles(ctx).ReadFile(rulesPath)
		if err != nil {
			return Usagef("read rules: %w", err)
		}
		res, err := datalog.EvalProgram(ctx, db, rulesPath, string(src))
		if err != nil {
			return Failf("%w", err)
		}
		if printDiagnostics(env.Stderr, rulesPath+":", res.Program.File, res.Diagnostics) {
			return &ExitError{Code: ExitFindings}
		}
		m := map[string][][]string{}
		for k, v := range res.Relations {
			m[k] = nonNil(v)
		}
		out = m
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
	return err
}

func nonNil(t [][]string) [][]string {
	if t == nil {
		return [][]string{}
	}
	return t
}
