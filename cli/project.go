package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/lang"
)

// loadConfig reads the configuration named by --config, or else the
// .ctxql.yaml found by walking up from the directory of the first path
// argument (the working directory for standard input). A missing file
// gives the default configuration.
func loadConfig(flag string, args []string) (*config.Config, error) {
	if flag != "" {
		data, err := (*fileLimits)(nil).reader().ReadFile(flag)
		if err != nil {
			return nil, Usagef("config: %w", err)
		}
		abs, err := filepath.Abs(flag)
		if err != nil {
			return nil, Usagef("config: %w", err)
		}
		cfg, err := config.ParseFile(abs, data)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: err} // the error names the file and position
		}
		return cfg, nil
	}
	dir := "."
	for _, a := range args {
		if a == "-" {
			continue
		}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			dir = a
		} else {
			dir = filepath.Dir(a)
		}
		break
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Usagef("config: %w", err)
	}
	cfg, _, err := config.Load(abs)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err} // the error names the file and position
	}
	return cfg, nil
}

// absPath is p made absolute for the configuration's file queries.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// perFile runs work on every path, one worker per CPU, each with its own
// buffered standard output and error, and then copies the buffers to env
// and returns the results, both in path order. The first error in path
// order is returned (after the output of the files before it).
func perFile[T any](env Env, paths []string, work func(env Env, path string) (T, error)) ([]T, error) {
	type slot struct {
		res      T
		err      error
		out, log bytes.Buffer
	}
	slots := make([]slot, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(paths)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := &slots[i]
				s.res, s.err = work(Env{Stdout: &s.out, Stderr: &s.log}, paths[i])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make([]T, 0, len(paths))
	for i := range slots {
		s := &slots[i]
		if _, err := env.Stdout.Write(s.out.Bytes()); err != nil {
			return out, err
		}
		if _, err := env.Stderr.Write(s.log.Bytes()); err != nil {
			return out, err
		}
		if s.err != nil {
			return out, s.err
		}
		out = append(out, s.res)
	}
	return out, nil
}

// suffixes lists, for help texts, the file suffixes of the languages keep
// accepts: ".pact, .jql, ... and .dl".
func suffixes(keep func(*lang.Language) bool) string {
	var exts []string
	for _, l := range lang.All() {
		if keep(l) {
			exts = append(exts, l.Extensions()...)
		}
	}
	if len(exts) < 2 {
		return strings.Join(exts, "")
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " and " + exts[len(exts)-1]
}
