package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/acp"
	mcpserver "github.com/ctxql/ctxql/mcp"
)

// newMCPCmd builds `ctxql mcp [--dir DIR | --cache FILE]`.
func newMCPCmd(env Env) *cobra.Command {
	var dir, cache string
	var force bool
	cmd := &cobra.Command{
		Use:   "mcp [--dir DIR | --cache FILE]",
		Short: "Serve ACP and ctxql tools over MCP (stdio)",
		Long: "Serve an ACP cache over the Model Context Protocol on standard input and output.\n" +
			"The project directory is --dir (its " + acp.DefaultCacheName + " is served), or the directory of\n" +
			"--cache, or the directory of the cache found from the working directory upwards. The server\n" +
			"reads nothing outside the project directory and writes only its state file " + acp.StateFileName + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), env, dir, cache, force)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "project directory holding "+acp.DefaultCacheName)
	cmd.Flags().StringVar(&cache, "cache", "", "cache file (its directory is the project directory)")
	cmd.Flags().BoolVar(&force, "force", false, "skip the staleness check")
	return cmd
}

func runMCP(ctx context.Context, env Env, dir, cache string, force bool) error {
	if dir != "" && cache != "" {
		return Usagef("ctxql mcp: give --dir or --cache, not both")
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
	ix, err := acp.Load(p)
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
	srv := mcpserver.New(ix, mcpserver.Options{Version: Version, Now: now})
	in, ok := env.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(env.Stdin)
	}
	out, ok := env.Stdout.(io.WriteCloser)
	if !ok {
		out = nopWriteCloser{env.Stdout}
	}
	if err := srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out}); err != nil && ctx.Err() == nil {
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
