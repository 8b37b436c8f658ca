// Package pgtest starts a temporary PostgreSQL cluster for tests: Debian's
// initdb and pg_ctl, a data directory and a Unix socket in a temporary
// directory, trust authentication, no TCP. When PostgreSQL is not
// installed the test is skipped, except in CI (CI set), where it fails.
package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// bin finds a PostgreSQL program on PATH or in Debian's versioned
// directories, the newest first.
func bin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a cluster for the test and returns its URL
// (postgres://ctxql@/postgres?host=SOCKETDIR); the cluster stops when the
// test ends.
func Start(t testing.TB) string {
	t.Helper()
	initdb, pgctl := bin("initdb"), bin("pg_ctl")
	if initdb == "" || pgctl == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("PostgreSQL is not installed (initdb, pg_ctl); scripts/test installs Debian's postgresql")
		}
		t.Skip("PostgreSQL is not installed (initdb, pg_ctl)")
	}
	dir, err := os.MkdirTemp("", "ctxql-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// initdb refuses to run as root: run the cluster as another user.
	var as []string
	if os.Geteuid() == 0 {
		name := ""
		for _, n := range []string{"postgres", "nobody"} {
			if _, err := user.Lookup(n); err == nil {
				name = n
				break
			}
		}
		runuser, _ := exec.LookPath("runuser")
		if name == "" || runuser == "" {
			t.Skip("running as root without a postgres or nobody user and runuser to run PostgreSQL as")
		}
		u, _ := user.Lookup(name)
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		as = []string{runuser, "-u", name, "--"}
	}
	run := func(args ...string) {
		t.Helper()
		argv := append(as[:len(as):len(as)], args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("%v: %v\n%s\n%s", args, err, out, log)
		}
	}
	data := filepath.Join(dir, "data")
	run(initdb, "-D", data, "-U", "ctxql", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	run(pgctl, "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-k %s -c listen_addresses='' -F -c max_connections=20 -c shared_buffers=16MB", dir), "start")
	t.Cleanup(func() {
		argv := append(as[:len(as):len(as)], pgctl, "-D", data, "-m", "immediate", "-w", "stop")
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	return "postgres://ctxql@/postgres?host=" + dir
}
