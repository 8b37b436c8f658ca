package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/files"
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
	comp, err := jqlLang().Compile(q, db.Dialect())
	if err != nil {
		return compileFailed(prefix, err)
	}
	if comp.Invalid() {
		return jqlInvalid(env.Stderr, q.Name, comp.File, comp.Diagnostics)
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
		return jqlInvalid(env.Stderr, q.Name, res.File, res.Diagnostics)
	}
	for _, d := range res.Diagnostics {
		fmt.Fprintf(env.Stderr, "%s:%s: warning: %s\n", q.Name, res.File.Position(d.Span.Start), d.Message)
	}
	if err := writeJSONLines(env.Stdout, res.Items); err != nil {
		return fmt.Errorf("%s%w", prefix, err)
	}
	return nil
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
