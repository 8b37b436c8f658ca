package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/files"
)

// acpFlags are the flags shared by the acp subcommands.
type acpFlags struct {
	cache                      string
	force                      bool
	json, pretty, table, plain bool
	timeout                    time.Duration
	maxResults, maxBytes       int
	maxMemory, maxData         int64
}

func (f *acpFlags) format() (string, error) {
	n, out := 0, acp.FormatDefault
	for _, x := range []struct {
		on   bool
		name string
	}{{f.json, acp.FormatJSON}, {f.pretty, acp.FormatPretty}, {f.table, acp.FormatTable}, {f.plain, acp.FormatPlain}} {
		if x.on {
			n++
			out = x.name
		}
	}
	if n > 1 {
		return "", errors.New("choose one of --json, --pretty, --table, --plain")
	}
	return out, nil
}

// newACPCmd builds `ctxql acp query ...` and `ctxql acp constraints PATH`.
func newACPCmd(env Env) *cobra.Command {
	f := &acpFlags{}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Query an ACP cache",
		Long: "Query an ACP cache file (.acp.cache.json, found by walking up from the working directory\n" +
			"unless --cache names one). Exit 0 on success, 1 when a symbol, file or domain is not found or\n" +
			"a jq expression fails (error, timeout or result cap), 2 on usage errors or an unreadable cache.\n" +
			"Staleness (files modified after generated_at, git_commit differing from HEAD) is a warning on\n" +
			"stderr; --force skips the check.",
		Args: cobra.NoArgs,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.cache, "cache", "", "cache file (default: "+acp.DefaultCacheName+" found from the working directory upwards)")
	pf.BoolVar(&f.force, "force", false, "skip the staleness check")
	pf.BoolVar(&f.json, "json", false, "compact JSON output")
	pf.BoolVar(&f.pretty, "pretty", false, "pretty-printed JSON output")
	pf.BoolVar(&f.table, "table", false, "tabular output")
	pf.BoolVar(&f.plain, "plain", false, "plain text, one item per line")
	pf.DurationVar(&f.timeout, "timeout", acp.DefaultJQTimeout, "time limit of a jq expression")
	pf.IntVar(&f.maxResults, "max-results", acp.DefaultJQMaxResults, "most results a jq expression may produce")
	pf.IntVar(&f.maxBytes, "max-output-bytes", acp.DefaultJQMaxBytes, "most bytes of JSON a jq expression may produce")
	pf.IntVar(&f.maxBytes, "max-bytes", acp.DefaultJQMaxBytes, "same as --max-output-bytes")
	pf.MarkHidden("max-bytes")
	pf.Int64Var(&f.maxMemory, "max-memory", budget.DefaultMaxMemory, "most bytes the heap may grow while a jq expression runs")
	pf.Int64Var(&f.maxData, "max-data-bytes", budget.DefaultMaxDataBytes, "largest cache file read")
	query := &cobra.Command{
		Use:   "query (symbol NAME | file PATH | callers SYM | callees SYM | domains | domain NAME | stats | search PATTERN | 'JQ EXPR')",
		Short: "Look up symbols, files, domains, the call graph and statistics, or run a jq expression",
		Long: "Look up symbols, files, domains, the call graph and statistics, or run a sandboxed jq\n" +
			"expression over the cache (no environment, no modules, no input files; results capped).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runACPQuery(cmd.Context(), env, f, args)
		},
	}
	constraints := &cobra.Command{
		Use:   "constraints PATH",
		Short: "Show the constraints of a file before modifying it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runACPConstraints(env, f, args[0])
		},
	}
	cmd.AddCommand(query, constraints)
	return cmd
}

func loadACP(env Env, f *acpFlags) (*acp.Index, error) {
	p := f.cache
	if p == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, Usagef("ctxql acp: %w", err)
		}
		if p, err = acp.FindCache(wd); err != nil {
			return nil, Usagef("ctxql acp: %w", err)
		}
	}
	if f.maxData <= 0 {
		return nil, Usagef("ctxql acp: --max-data-bytes must be positive")
	}
	ix, err := acp.LoadFrom(files.New(f.maxData, budget.FlagMaxDataBytes), p)
	if err != nil {
		return nil, Usagef("ctxql acp: %w", err)
	}
	if !f.force {
		for _, w := range ix.Staleness() {
			fmt.Fprintf(env.Stderr, "warning: %s\n", w)
		}
	}
	return ix, nil
}

func runACPQuery(ctx context.Context, env Env, f *acpFlags, args []string) error {
	format, err := f.format()
	if err != nil {
		return Usagef("ctxql acp query: %w", err)
	}
	if f.timeout <= 0 || f.maxResults <= 0 || f.maxBytes <= 0 || f.maxMemory <= 0 {
		return Usagef("ctxql acp query: --timeout, --max-results, --max-output-bytes and --max-memory must be positive")
	}
	ix, err := loadACP(env, f)
	if err != nil {
		return err
	}
	err = acp.RunQuery(ctx, ix, args, env.Stdout, acp.QueryOptions{Format: format, Limits: acp.JQLimits{Timeout: f.timeout, MaxResults: f.maxResults, MaxBytes: f.maxBytes, MaxMemoryBytes: f.maxMemory}, Stderr: env.Stderr})
	return acpError(err)
}

func acpError(err error) error {
	if err == nil {
		return nil
	}
	var ue *acp.UsageError
	if errors.As(err, &ue) {
		return Usagef("ctxql acp %w", err)
	}
	return Failf("ctxql acp: %w", err)
}

func runACPConstraints(env Env, f *acpFlags, p string) error {
	format, err := f.format()
	if err != nil {
		return Usagef("ctxql acp constraints: %w", err)
	}
	ix, err := loadACP(env, f)
	if err != nil {
		return err
	}
	return writeConstraints(env.Stdout, ix, path.Clean(p), format)
}

func writeConstraints(w io.Writer, ix *acp.Index, p, format string) error {
	rep := ix.CheckConstraints(p)
	switch format {
	case acp.FormatJSON, acp.FormatPretty:
		// Both print the indented record of the specification's example.
		b, err := acp.MarshalJSON(rep, true)
		if err != nil {
			return Failf("ctxql acp constraints: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	default:
		return rep.WriteText(w)
	}
}
