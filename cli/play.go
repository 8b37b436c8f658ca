package cli

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/play"
)

// newPlayCmd builds `ctxql play [--data FILE] [--addr ADDR] [--open] [PATH]`
// and `ctxql play --export DIR [--wasm PKGDIR]`.
func newPlayCmd(env Env) *cobra.Command {
	var o play.Options
	var addr, export, wasm string
	var open bool
	cmd := &cobra.Command{
		Use:   "play [--data FILE] [--addr 127.0.0.1:0] [--open] [PATH] | play --export DIR [--wasm PKGDIR]",
		Short: "Serve the query playground in the browser",
		Long: "Serve a local query playground: one page with an editor backed by the language server,\n" +
			"live results, the --explain counts, Datalog --why proofs and shareable links. PATH opens a\n" +
			"query file; --data chooses its sample data. Both must lie inside the project directory\n" +
			"(--dir, default the working directory), and so must every file the page reads. The page's\n" +
			"address, with its session token, is printed; the server runs until interrupted. It listens\n" +
			"on loopback unless --addr names another interface, and warns then.\n\n" +
			"--export DIR writes the page instead as static files that run in the browser on ctxql's\n" +
			"WebAssembly module (results, the --explain funnel, Datalog proofs, diagnostics, formatting,\n" +
			"the examples and shareable links), for any static file server under any path. The exported\n" +
			"page reads no files: its sample data is pasted or an example's. A release build of ctxql\n" +
			"carries the module; otherwise --wasm names the directory of the npm package @ctxql/ctxql.\n" +
			"--timeout bounds one evaluation of the exported page too.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if export != "" || wasm != "" {
				return runExport(env, cmd, args, export, wasm, o.Budget.Timeout)
			}
			if len(args) == 1 {
				o.Path = args[0]
			}
			o.Version = Version
			return runPlay(cmd.Context(), env, o, addr, open)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", ".", "project directory: the page reads nothing outside it")
	f.StringVar(&o.Data, "data", "", "sample data file (inside the project)")
	f.StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (host:port; a port of 0 picks a free one)")
	f.BoolVar(&open, "open", false, "open the page in the default browser")
	f.StringVar(&export, "export", "", "write the page as a static site into DIR instead of serving it")
	f.StringVar(&wasm, "wasm", "", "with --export: the npm package @ctxql/ctxql's directory, whose module the page runs on")
	f.DurationVar(&o.Budget.Timeout, "timeout", play.DefaultTimeout, "time limit of one evaluation or request")
	f.Int64Var(&o.Budget.MaxMemory, "max-memory", budget.DefaultMaxMemory, "most bytes the heap may grow during one request")
	f.Int64Var(&o.Budget.MaxDataBytes, "max-data-bytes", budget.DefaultMaxDataBytes, "largest sample data file")
	f.Int64Var(&o.Budget.MaxPasteBytes, "max-paste-bytes", play.DefaultMaxPasteBytes, "largest pasted sample data")
	f.Int64Var(&o.Budget.MaxQueryBytes, "max-query-bytes", play.DefaultMaxQueryBytes, "largest query document")
	return cmd
}

// servingFlags are the flags of a served playground, which --export
// refuses.
var servingFlags = []string{"dir", "data", "addr", "open", "max-memory", "max-data-bytes", "max-paste-bytes", "max-query-bytes"}

// runExport writes the static playground.
func runExport(env Env, cmd *cobra.Command, args []string, dir, wasm string, timeout time.Duration) error {
	if dir == "" {
		return Usagef("ctxql play: --wasm goes with --export DIR")
	}
	if len(args) > 0 {
		return Usagef("ctxql play --export: the exported page opens no file (PATH %q)", args[0])
	}
	if timeout <= 0 {
		return Usagef("ctxql play --export: --timeout must be positive")
	}
	for _, name := range servingFlags {
		if cmd.Flags().Changed(name) {
			return Usagef("ctxql play --export: --%s is for the served playground", name)
		}
	}
	module := play.EmbeddedModule()
	if wasm != "" {
		m, err := play.ModuleDir(wasm)
		if err != nil {
			return Usagef("ctxql play --export: --wasm %s: %w", wasm, err)
		}
		module = m
	}
	if module == nil {
		return Usagef("ctxql play --export: this build of ctxql carries no WebAssembly module: --wasm names the directory of the npm package @ctxql/ctxql")
	}
	if err := play.Export(dir, module, play.ExportOptions{Version: Version, Timeout: timeout}); err != nil {
		return Usagef("ctxql play --export: %w", err)
	}
	fmt.Fprintf(env.Stdout, "ctxql play: exported the playground to %s\n", dir)
	return nil
}

func runPlay(ctx context.Context, env Env, o play.Options, addr string, open bool) error {
	b := o.Budget
	if b.Timeout <= 0 || b.MaxMemory <= 0 || b.MaxDataBytes <= 0 || b.MaxPasteBytes <= 0 || b.MaxQueryBytes <= 0 {
		return Usagef("ctxql play: --timeout, --max-memory, --max-data-bytes, --max-paste-bytes and --max-query-bytes must be positive")
	}
	o.Log = env.Stderr
	s, err := play.New(o)
	if err != nil {
		return Usagef("ctxql play: %w", err)
	}
	defer s.Close()
	warn, err := s.Listen(addr)
	if err != nil {
		return Usagef("ctxql play: %w", err)
	}
	if warn != "" {
		fmt.Fprintln(env.Stderr, "ctxql play: "+warn)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx) }()
	fmt.Fprintf(env.Stdout, "ctxql play: serving %s\n", s.URL())
	if open {
		if err := openBrowser(s.URL()); err != nil {
			fmt.Fprintf(env.Stderr, "ctxql play: --open: %v\n", err)
		}
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		select {
		case <-errc:
		case <-time.After(3 * time.Second):
		}
		return nil
	}
}

// openBrowser opens url with the system's opener.
func openBrowser(url string) error {
	name, args := "xdg-open", []string{url}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	return exec.Command(name, args...).Start()
}
