package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
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
			dir := abs
			if st, err := os.Stat(abs); err != nil || !st.IsDir() {
				dir = filepath.Dir(abs)
			}
			if !slices.Contains(dirs, dir) {
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
