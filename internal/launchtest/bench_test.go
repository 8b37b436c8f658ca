package launchtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxql/ctxql/api"
)

// BenchmarkPythonCall measures a call on loaded data through the Python
// package (python/bench.py: data.evaluate on a handle, round trip through
// the worker's pipe) and, in the same run, the same evaluation called in
// process through api.Session, the engine's own time with the result's
// JSON; it reports both medians and their difference, the cost of the
// package and the pipe, whose goal is at most 1 ms. It runs the package
// from python/ against a ctxql built here.
//
//	go test -run '^$' -bench PythonCall -benchtime 1x ./internal/launchtest
func BenchmarkPythonCall(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("needs python3")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(root, "testdata", "acp", "project", "data")
	for _, c := range []struct{ name, language, file, query string }{
		{"pact", "pact", "context.json", ".block"},
		{"jql", "jql", "activities.json", `{"from": "activities", "limit": 1}`},
		{"datalog", "datalog", "relations.json", "q(x, y) <-- edge(x, y)."},
	} {
		b.Run(c.name, func(b *testing.B) {
			const n = 2000
			path := filepath.Join(data, c.file)
			native := nativeP50(b, c.language, path, c.query, n)
			cmd := exec.Command("python3", filepath.Join(root, "python", "bench.py"), c.language, path, c.query, "2000")
			cmd.Env = append(os.Environ(), "CTXQL_BINARY="+bin, "PYTHONPATH="+filepath.Join(root, "python"))
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("bench.py: %v", err)
			}
			var py struct {
				P50 float64 `json:"p50_us"`
				P90 float64 `json:"p90_us"`
			}
			if err := json.Unmarshal(out, &py); err != nil {
				b.Fatalf("bench.py printed %q: %v", out, err)
			}
			nat := float64(native.Nanoseconds()) / 1000
			b.ReportMetric(py.P50, "python-p50-µs")
			b.ReportMetric(py.P90, "python-p90-µs")
			b.ReportMetric(nat, "native-p50-µs")
			b.ReportMetric(py.P50-nat, "overhead-µs")
			b.Logf("%s: Python call p50 %.1f µs (p90 %.1f), in process %.1f µs: %.1f µs above the engine (goal ≤ 1000 µs)", c.name, py.P50, py.P90, nat, py.P50-nat)
		})
	}
}

// nativeP50 is the median time of n evaluations of query on data loaded
// once into an api.Session, in this process.
func nativeP50(b *testing.B, language, path, query string, n int) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	s := api.NewSession("devel", "")
	ctx := context.Background()
	params, _ := json.Marshal(map[string]any{"language": language, "data": string(raw), "name": filepath.Base(path)})
	res, aerr := s.Call(ctx, "load", params)
	if aerr != nil {
		b.Fatal(aerr)
	}
	var h struct {
		Handle int `json:"handle"`
	}
	if err := json.Unmarshal(res, &h); err != nil {
		b.Fatal(err)
	}
	params, _ = json.Marshal(map[string]any{"handle": h.Handle, "query": query})
	times := make([]time.Duration, 0, n)
	for i := range n + 200 {
		t0 := time.Now()
		if _, aerr := s.Call(ctx, "evaluate", params); aerr != nil {
			b.Fatal(aerr)
		}
		if i >= 200 {
			times = append(times, time.Since(t0))
		}
	}
	slices.Sort(times)
	return times[n/2]
}
