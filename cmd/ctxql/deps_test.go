package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// benchOnly are modules that only the benchmarks (the bench module) or
// the differential tests use; the binary must not link them.
var benchOnly = []string{
	"github.com/andybalholm/cascadia",
	"github.com/bytedance/sonic",
	"github.com/goccy/go-json",
	"modernc.org/sqlite",
	"golang.org/x/net/html",
}

// TestBinaryDependencies checks that the ctxql binary builds without the
// anchor engines the benchmarks compare against: none of their packages is
// among the binary's dependencies, and the tool's go.mod does not require
// the ones only the bench module uses.
func TestBinaryDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 50 {
		t.Fatalf("go list -deps listed only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		for _, m := range benchOnly {
			if p == m || strings.HasPrefix(p, m+"/") {
				t.Errorf("the binary depends on %s (module %s, for benchmarks and tests only)", p, m)
			}
		}
	}
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) > 0 && (f[0] == "github.com/bytedance/sonic" || f[0] == "github.com/goccy/go-json") {
			t.Errorf("go.mod requires %s, which only the bench module uses", f[0])
		}
	}
}
