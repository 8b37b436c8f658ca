package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/internal/files"
)

// watchDebounce is how long a watching command waits after a change for
// the burst of events an editor's save makes to end.
const watchDebounce = 150 * time.Millisecond

// watch runs run, then again whenever one of the files it says it read
// changes (or a file relevant accepts appears in a directory it read),
// until ctx is done.
// On a terminal the screen is cleared before each run; elsewhere a line
// separates the runs. A run's findings do not stop the watch: they are
// printed like any other run's. It returns ctx's error once ctx is done
// (an interrupt exits 130 as for any command).
func watch(ctx context.Context, env Env, relevant func(name string) bool, run func(context.Context) ([]string, error)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return Usagef("--watch: %w", err)
	}
	defer w.Close()
	var watched []string // directories being watched
	var inputs map[string]bool
	for first := true; ; first = false {
		if !first {
			if f, ok := env.Stdout.(*os.File); ok && isTerminal(f) {
				fmt.Fprint(env.Stdout, clearScreen)
			} else {
				fmt.Fprintf(env.Stdout, "--- %s: change detected, running again\n", time.Now().Format("15:04:05"))
			}
		}
		paths, err := run(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var xe *ExitError
		switch {
		case errors.As(err, &xe):
			if xe.Err != nil {
				fmt.Fprintf(env.Stderr, "%s\n", xe.Err)
			}
		case err != nil:
			fmt.Fprintf(env.Stderr, "%s\n", err)
		}
		inputs = map[string]bool{}
		dirs := []string{}
		for _, p := range paths {
			abs := absPath(p)
			inputs[abs] = true
			if st, err := os.Stat(abs); err == nil && st.IsDir() {
				dirs = appendDirs(dirs, abs)
				continue
			}
			if dir := filepath.Dir(abs); !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		for _, d := range watched {
			if !slices.Contains(dirs, d) {
				_ = w.Remove(d)
			}
		}
		for _, d := range dirs {
			if !slices.Contains(watched, d) {
				if err := w.Add(d); err != nil {
					fmt.Fprintf(env.Stderr, "--watch: %s: %v\n", d, err)
				}
			}
		}
		watched = dirs
		fmt.Fprintln(env.Stderr, "watching for changes (interrupt to stop)")
		if err := waitChange(ctx, env, w, inputs, relevant); err != nil {
			return err
		}
	}
}

// waitChange returns once a watched input changes (or a relevant file is
// created in, renamed into or removed from a watched directory) and no
// further event came for watchDebounce.
func waitChange(ctx context.Context, env Env, w *fsnotify.Watcher, inputs map[string]bool, relevant func(string) bool) error {
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("--watch: the watcher stopped")
			}
			fmt.Fprintf(env.Stderr, "--watch: %v\n", err)
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("--watch: the watcher stopped")
			}
			if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
				continue
			}
			if inputs[ev.Name] || (relevant != nil && relevant(ev.Name)) {
				timer = time.After(watchDebounce)
			}
		case <-timer:
			return nil
		}
	}
}

// maxWatchedDirs bounds the directories a watch adds below one directory
// it was given.
const maxWatchedDirs = 4096

// appendDirs adds root and the directories below it (not .git or
// node_modules, at most maxWatchedDirs) to dirs: the operating system's
// notifications are per directory.
func appendDirs(dirs []string, root string) []string {
	n := 0
	_ = files.New(0, "").WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != root && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if n++; n > maxWatchedDirs {
			return filepath.SkipAll
		}
		if !slices.Contains(dirs, p) {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs
}

// watchable adds --watch to cmd: with it, cmd runs again whenever one of
// the files inputs names (from its flags and arguments) changes, or, below
// a directory it names, a file relevant accepts.
func watchable(env Env, cmd *cobra.Command, relevant func(string) bool, inputs func(args []string) []string) {
	run := cmd.RunE
	var on bool
	cmd.Flags().BoolVar(&on, "watch", false, "run again whenever a file it reads changes")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if !on {
			return run(c, args)
		}
		return watch(c.Context(), env, relevant, func(ctx context.Context) ([]string, error) {
			c.SetContext(ctx)
			return inputs(args), run(c, args)
		})
	}
}

// flagInputs returns the values of the named flags of cmd that are set.
func flagInputs(cmd *cobra.Command, names ...string) []string {
	var out []string
	for _, n := range names {
		if v, err := cmd.Flags().GetString(n); err == nil && v != "" {
			out = append(out, v)
		}
	}
	return out
}
