// Package cpuprof writes a CPU profile of a whole ctxql process when the
// environment asks for one: the profiles scripts/pgo gathers into the
// commands' default.pgo (profile-guided optimization), and a way for users
// to show where a slow run spends its time.
package cpuprof

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// Env is the environment variable that names the profile's file, or a
// directory to write it into as ctxql-<process id>.pprof.
const Env = "CTXQL_CPUPROFILE"

// Start starts the CPU profile the environment variable Env asks for and
// returns the function that stops it and closes its file. Without the
// variable, or when the profile cannot start (the error is written to
// stderr), the process runs as usual and stop does nothing.
func Start(getenv func(string) string, stderr *os.File) (stop func()) {
	path := getenv(Env)
	if path == "" {
		return func() {}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, fmt.Sprintf("ctxql-%d.pprof", os.Getpid()))
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "ctxql: %s: %v\n", Env, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "ctxql: %s: %v\n", Env, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "ctxql: %s: %v\n", Env, err)
		}
	}
}
