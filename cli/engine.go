package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
)

// engineFlag registers --engine on an eval command.
func engineFlag(cmd *cobra.Command, url *string) {
	cmd.Flags().StringVar(url, "engine", "", "run the query in this database (sqlite:FILE, postgres://…) filled by `ctxql load` instead of over --data")
}

// dataFilesLimit is the reader of evaluation data at most max bytes a file.
func dataFilesLimit(max int64) *files.Reader { return files.New(max, "--max-data-bytes") }

// runEngineJQL is `ctxql eval jql --engine URL`: the query compiled to the
// database's SQL, run there, and its documents projected, printed as eval
// prints the in-process result of the same data.
func runEngineJQL(ctx context.Context, env Env, url, data, queryFile string, args []string, b lang.Budget, explain bool) error {
	const prefix = "ctxql eval jql: "
	switch {
	case data != "":
		return Usagef("%sgive --data or --engine, not both", prefix)
	case explain:
		return Usagef("%s--explain and --profile run in process; they do not take --engine", prefix)
	}
	q, err := readQueryText(ctx, prefix, queryFile, args)
	if err != nil {
		return err
	}
	db, err := engine.Open(ctx, url)
	if err != nil {
		return Usagef("%s%w", prefix, err)
	}
	defer db.Close()
	m, err := lang.EngineMapping(ctx, db)
	if err != nil {
		return Usagef("%s%w", prefix, err)
	}
	comp, err := jqlLang().CompileMapped(q, db.Dialect(), nil, m)
	if err != nil {
		return compileFailed(prefix, q.Name, comp, err)
	}
	if comp.Invalid() {
		return reportInvalid(env.Stderr, q.Name+":", comp.File, comp.Diagnostics)
	}
	var cursor int64
	if comp.CursorSQL != "" {
		n, err := db.Texts(ctx, comp.CursorSQL)
		if err != nil {
			return loadFailed(prefix, err)
		}
		if len(n) == 1 {
			cursor, _ = strconv.ParseInt(string(n[0]), 10, 64)
		}
	}
	rows, err := db.Texts(ctx, comp.SQL)
	if err != nil {
		return loadFailed(prefix, err)
	}
	res, err := comp.Finish(ctx, cursor, rows, b)
	if err != nil {
		return Usagef("%s%w", prefix, limitError(err, "--max-bytes"))
	}
	if res.Invalid() {
		return reportInvalid(env.Stderr, q.Name+":", res.File, res.Diagnostics)
	}
	_ = reportInvalid(env.Stderr, q.Name+":", res.File, res.Diagnostics) // its warnings
	if err := res.Print(env.Stdout); err != nil {
		return fmt.Errorf("%s%w", prefix, err)
	}
	return nil
}

// openEngine opens a database for the language table (data paths that are
// engine URLs, in .ctxql.yaml or a data pragma).
func openEngine(ctx context.Context, url string) (lang.Engine, error) {
	db, err := engine.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// readQueryText reads a query given as an argument or with --query-file.
func readQueryText(ctx context.Context, prefix, queryFile string, args []string) (lang.Query, error) {
	switch {
	case queryFile != "" && len(args) > 0:
		return lang.Query{}, Usagef("%sgive the query as an argument or with --query-file, not both", prefix)
	case queryFile != "":
		b, err := sourceFiles(ctx).ReadFile(queryFile)
		if err != nil {
			return lang.Query{}, Usagef("%s%w", prefix, err)
		}
		return lang.Query{Name: queryFile, Src: string(b)}, nil
	case len(args) == 1:
		return lang.Query{Name: "query", Src: args[0]}, nil
	}
	return lang.Query{}, Usagef("%smissing QUERY (or --query-file)", prefix)
}

// runEngineDatalog is `ctxql eval datalog --engine URL`: the rule or
// program checked against the database's catalog of relations, compiled to
// its SQL, run there, and the tuples printed as eval prints the in-process
// result of the same data.
func runEngineDatalog(ctx context.Context, env Env, url, data, rulesPath, rule string, haveRule bool, lim datalogLimits) error {
	const prefix = "ctxql eval datalog: "
	switch {
	case data != "":
		return Usagef("%sgive --data or --engine, not both", prefix)
	case lim.why != "" || lim.whyNot != "" || lim.profile:
		return Usagef("%s--why, --why-not and --profile run in process; they do not take --engine", prefix)
	}
	q, err := datalogQuery(ctx, rulesPath, rule, haveRule, true)
	if err != nil {
		return err
	}
	db, err := engine.Open(ctx, url)
	if err != nil {
		return Usagef("%s%w", prefix, err)
	}
	defer db.Close()
	schema, err := lang.EngineSchema(ctx, db)
	if err != nil {
		return Usagef("%sread the relations of %s (load them with ctxql load --lang datalog): %w", prefix, url, err)
	}
	comp, err := datalogLang().Compile(q, db.Dialect(), schema)
	if err != nil {
		return compileFailed(prefix, q.Name, comp, err)
	}
	pfx := rulesPath + ":"
	if haveRule {
		pfx = ""
	}
	if comp.Invalid() {
		return reportInvalid(env.Stderr, pfx, comp.File, comp.Diagnostics)
	}
	var results [][][]any
	if comp.Script != nil {
		qs := make([]string, len(comp.Relations))
		for i, r := range comp.Relations {
			qs[i] = r.SQL
		}
		if results, err = db.RunScript(ctx, comp.Script, qs); err != nil {
			return Failf("%s%w", prefix, err)
		}
	} else {
		for _, r := range comp.Relations {
			rows, err := db.Rows(ctx, r.SQL)
			if err != nil {
				return Failf("%s%s: %w", prefix, r.Name, err)
			}
			results = append(results, rows)
		}
	}
	tuples := map[string][][]string{}
	for i, r := range comp.Relations {
		rows := results[i]
		ts := make([][]string, len(rows))
		for i, row := range rows {
			ts[i] = make([]string, len(row))
			for k, v := range row {
				ts[i][k] = lang.EngineText(v)
			}
		}
		tuples[r.Name] = ts
	}
	res := comp.FinishDatalog(tuples)
	if err := reportInvalid(env.Stderr, pfx, res.File, res.Diagnostics); err != nil {
		return err
	}
	out, err := jsonenc.Marshal(res.Value)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(env.Stdout, "%s\n", out)
	return err
}
