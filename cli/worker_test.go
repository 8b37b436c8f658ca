package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildCtxql builds the ctxql binary into a temporary directory.
func buildCtxql(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/ctxql").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestWorkerBinary talks to `ctxql worker` over its standard input and
// output: a load, evaluations through the handle, a check, a bad request
// and a release, each answered on one line with the request's id, in
// order; the worker exits 0 when its input closes.
func TestWorkerBinary(t *testing.T) {
	bin := buildCtxql(t)
	data, err := os.ReadFile("../testdata/examples/graph.json")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "worker")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewScanner(outPipe)
	out.Buffer(nil, 1<<24)
	ask := func(req string) string {
		t.Helper()
		if _, err := in.Write([]byte(req + "\n")); err != nil {
			t.Fatal(err)
		}
		if !out.Scan() {
			t.Fatalf("no answer to %s: %v", req, out.Err())
		}
		return out.Text()
	}
	dataJSON, _ := json.Marshal(string(data))
	for _, c := range []struct{ req, want string }{
		{`{"id": 1, "method": "load", "params": {"language": "datalog", "data": ` + string(dataJSON) + `}}`, `{"id":1,"result":{"handle":1}}`},
		{`{"id": "a", "method": "evaluate", "params": {"handle": 1, "query": "q(y) <-- edge(\"a\", y)"}}`, `{"id":"a","result":[["b"]]}`},
		{`{"id": 3, "method": "evaluate", "params": {"handle": 1, "query": "cyc(x) <-- r(x, x); r(x, y) <-- edge(x, y); r(x, z) <-- r(x, y), edge(y, z);", "program": true}}`,
			`{"id":3,"result":{"cyc":[["b"],["c"]],"r":[["a","b"],["a","c"],["a","d"],["b","b"],["b","c"],["b","d"],["c","b"],["c","c"],["c","d"]]}}`},
		{`{"id": 4, "method": "check", "params": {"language": "pact", "text": ".cb[ttl<=]"}}`,
			`{"id":4,"result":[{"file":"stdin.pact","line":1,"column":10,"end_line":1,"end_column":11,"severity":"error","code":"pact-syntax","message":"expected a value after \"<=\", found \"]\"","fixable":false}]}`},
		{`{"id": 5, "method": "evaluate", "params": {"handle": 1, "query": "q(y) <-- edge(\"a\", y"}}`, `"code":"datalog/syntax"`},
		{`not json`, `{"id":null,"error":{"code":"usage"`},
		{`{"id": 6, "method": "release", "params": {"handle": 1}}`, `{"id":6,"result":null}`},
		{`{"id": 7, "method": "evaluate", "params": {"handle": 1, "query": "q(y) <-- edge(\"a\", y)"}}`, `{"id":7,"error":{"code":"usage","message":"no data set has handle 1`},
		{`{"id": 8, "method": "version"}`, `{"id":8,"result":"ctxql `},
	} {
		if got := ask(c.req); !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", c.req, got, c.want)
		}
	}
	in.Close()
	if help, _ := exec.Command(bin, "--help").CombinedOutput(); strings.Contains(string(help), "worker") {
		t.Errorf("ctxql --help lists the worker:\n%s", help)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the worker exited with %v after its input closed", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the worker did not exit when its input closed")
	}
}
