package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	mcpserver "github.com/ctxql/ctxql/mcp"
)

// newMCPCmd builds `ctxql mcp [--dir DIR | --cache FILE]`.
func newMCPCmd(env Env) *cobra.Command {
	var dir, cache string
	var force bool
	var lim mcpLimits
	cmd := &cobra.Command{
		Use:   "mcp [--dir DIR | --cache FILE]",
		Short: "Serve ACP and ctxql tools over MCP (stdio)",
		Long: "Serve an ACP cache over the Model Context Protocol on standard input and output.\n" +
			"The project directory is --dir (its " + acp.DefaultCacheName + " is served), or the directory of\n" +
			"--cache, or the directory of the cache found from the working directory upwards. The server\n" +
			"reads nothing outside the project directory and writes only its state file " + acp.StateFileName + "\n" +
			"(and its lock file). Every tool call runs under a deadline, an output budget and a memory budget;\n" +
			"a malformed message is answered with a JSON-RPC error and the server goes on.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), env, dir, cache, force, lim)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "project directory holding "+acp.DefaultCacheName)
	cmd.Flags().StringVar(&cache, "cache", "", "cache file (its directory is the project directory)")
	cmd.Flags().BoolVar(&force, "force", false, "skip the staleness check")
	cmd.Flags().DurationVar(&lim.timeout, "timeout", mcpserver.DefaultTimeout, "time limit of one tool call")
	cmd.Flags().IntVar(&lim.maxResults, "max-results", mcpserver.DefaultMaxResults, "most rows (JQL documents, Datalog tuples) one tool call may return")
	cmd.Flags().IntVar(&lim.maxTuples, "max-tuples", lang.DefaultMaxTuples, "Datalog: budget of intermediate and derived tuples of one tool call")
	cmd.Flags().IntVar(&lim.maxQuery, "max-query-bytes", mcpserver.DefaultMaxQueryBytes, "largest query text of a language tool")
	cmd.Flags().IntVar(&lim.maxOutput, "max-output-bytes", mcpserver.DefaultMaxOutputBytes, "most bytes one tool result or resource read may write")
	cmd.Flags().Int64Var(&lim.maxMemory, "max-memory", budget.DefaultMaxMemory, "most bytes the heap may grow during one tool call")
	cmd.Flags().Int64Var(&lim.maxData, "max-data-bytes", budget.DefaultMaxDataBytes, "largest file read (cache, data, state)")
	cmd.Flags().IntVar(&lim.maxMessage, "max-message-bytes", mcpserver.DefaultMaxMessageBytes, "largest incoming message")
	return cmd
}

// mcpLimits are the budget flags of `ctxql mcp`.
type mcpLimits struct {
	timeout    time.Duration
	maxOutput  int
	maxResults int
	maxTuples  int
	maxQuery   int
	maxMemory  int64
	maxData    int64
	maxMessage int
}

func runMCP(ctx context.Context, env Env, dir, cache string, force bool, lim mcpLimits) error {
	if dir != "" && cache != "" {
		return Usagef("ctxql mcp: give --dir or --cache, not both")
	}
	if lim.timeout <= 0 || lim.maxOutput <= 0 || lim.maxResults <= 0 || lim.maxTuples <= 0 || lim.maxQuery <= 0 || lim.maxMemory <= 0 || lim.maxData <= 0 || lim.maxMessage <= 0 {
		return Usagef("ctxql mcp: --timeout, --max-results, --max-tuples, --max-query-bytes, --max-output-bytes, --max-memory, --max-data-bytes and --max-message-bytes must be positive")
	}
	p := cache
	switch {
	case dir != "":
		p = filepath.Join(dir, acp.DefaultCacheName)
	case p == "":
		wd, err := os.Getwd()
		if err != nil {
			return Usagef("ctxql mcp: %w", err)
		}
		if p, err = acp.FindCache(wd); err != nil {
			return Usagef("ctxql mcp: %w", err)
		}
	}
	// The project directory is the cache's; the cache, the data files and
	// the state file are all read through a reader confined to it.
	proj, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return Usagef("ctxql mcp: %w", err)
	}
	fr, err := files.Confined(proj, lim.maxData, budget.FlagMaxDataBytes)
	if err != nil {
		return Usagef("ctxql mcp: %w", err)
	}
	defer fr.Close()
	ix, err := acp.LoadFrom(fr, filepath.Join(proj, filepath.Base(p)))
	if err != nil {
		return Usagef("ctxql mcp: %w", err)
	}
	if !force {
		for _, w := range ix.Staleness() {
			io.WriteString(env.Stderr, "warning: "+w+"\n")
		}
	}
	now, err := sourceDateClock(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return Usagef("mcp: %w", err)
	}
	srv := mcpserver.New(ix, mcpserver.Options{Version: Version, Now: now, Files: fr,
		Budget: mcpserver.Budget{Timeout: lim.timeout, MaxOutputBytes: lim.maxOutput, MaxMemory: lim.maxMemory, MaxResults: lim.maxResults, MaxTuples: lim.maxTuples, MaxQueryBytes: lim.maxQuery}})
	in, ok := env.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(env.Stdin)
	}
	out, ok := env.Stdout.(io.WriteCloser)
	if !ok {
		out = nopWriteCloser{env.Stdout}
	}
	// At the end of the input, running calls end within their deadline.
	t := &mcpserver.Transport{Reader: in, Writer: out, MaxMessageBytes: lim.maxMessage, MaxWriteBytes: lim.maxOutput + mcpserver.WriteSlack, DrainTimeout: lim.timeout + 5*time.Second}
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return Failf("ctxql mcp: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// sourceDateClock returns a clock fixed at the Unix time epoch, the value of
// SOURCE_DATE_EPOCH, so that state timestamps are reproducible; nil (the
// real clock) when epoch is empty.
func sourceDateClock(epoch string) (func() time.Time, error) {
	if epoch == "" {
		return nil, nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("SOURCE_DATE_EPOCH must be a Unix time in seconds: %w", err)
	}
	t := time.Unix(sec, 0).UTC()
	return func() time.Time { return t }, nil
}
