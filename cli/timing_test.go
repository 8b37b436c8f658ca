package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEvalTiming checks that --timing on eval pact, jql and datalog prints
// the result on stdout as without it, and on stderr one JSON object with
// exactly loadMs, evalMs, outputMs and totalMs, non-negative numbers whose
// phases do not exceed the total; and that without --timing nothing of it
// is printed.
func TestEvalTiming(t *testing.T) {
	jqlData := writeJQLData(t)
	cases := []struct {
		name string
		args []string
	}{
		{"pact", []string{"eval", "pact", "--dialect", "v1", "--data", "../testdata/pact/spec-v1-fixture.json", "@t0 ^seq .mt:depth(1,2)"}},
		{"pact explain", []string{"eval", "pact", "--explain", "--data", "../testdata/pact/spec-v1-fixture.json", ".cb"}},
		{"jql", []string{"eval", "jql", "--data", jqlData, `{"from": "activities", "select": ["id"], "order": "asc"}`}},
		{"jql explain", []string{"eval", "jql", "--explain", "--data", jqlData, `{"from": "activities", "where": {"type": "agentMessaged"}}`}},
		{"datalog", []string{"eval", "datalog", "--data", "../testdata/examples/graph.json", "--rules", "../testdata/examples/reach.dl"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plainOut, plainErr, plainCode := runCLI(c.args...)
			if plainCode != 0 || strings.Contains(plainErr, "loadMs") {
				t.Fatalf("without --timing: exit %d, stderr %q", plainCode, plainErr)
			}
			out, errOut, code := runCLI(append(c.args[:2:2], append([]string{"--timing"}, c.args[2:]...)...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if out != plainOut {
				t.Errorf("stdout with --timing differs:\n%s\nwithout:\n%s", out, plainOut)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			last := lines[len(lines)-1]
			var tm map[string]any
			dec := json.NewDecoder(strings.NewReader(last))
			dec.UseNumber()
			if err := dec.Decode(&tm); err != nil {
				t.Fatalf("stderr's last line is not a JSON object: %q: %v", last, err)
			}
			want := []string{"loadMs", "evalMs", "outputMs", "totalMs"}
			if len(tm) != len(want) {
				t.Errorf("keys %v, want exactly %v", tm, want)
			}
			v := map[string]float64{}
			for _, k := range want {
				n, ok := tm[k].(json.Number)
				if !ok {
					t.Fatalf("%s = %v, want a number", k, tm[k])
				}
				f, err := n.Float64()
				if err != nil || f < 0 {
					t.Fatalf("%s = %v, want a non-negative number", k, n)
				}
				v[k] = f
			}
			// Each phase is rounded down to the microsecond on its own.
			if sum := v["loadMs"] + v["evalMs"] + v["outputMs"]; sum > v["totalMs"]+0.003 {
				t.Errorf("phases sum to %.3f ms, more than the total %.3f ms", sum, v["totalMs"])
			}
		})
	}
}

// TestEvalTimingFailure checks that a failing evaluation still reports
// its timing, with the phases it did not reach at zero, and keeps its exit
// code and message.
func TestEvalTimingFailure(t *testing.T) {
	jqlData := writeJQLData(t)
	_, errOut, code := runCLI("eval", "jql", "--timing", "--data", jqlData, `{"from": "users"}`)
	if code != 1 || !strings.Contains(errOut, "InvalidDomain") {
		t.Fatalf("exit %d, stderr %q; want 1 and InvalidDomain", code, errOut)
	}
	var tm map[string]float64
	for _, l := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(l, "{") {
			if err := json.Unmarshal([]byte(l), &tm); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tm == nil || tm["totalMs"] < tm["loadMs"] {
		t.Fatalf("timing %v in stderr %q", tm, errOut)
	}
	_, errOut, code = runCLI("eval", "pact", "--timing", "--data", "/nonexistent/x.json", ".cb")
	if code != 2 || !strings.Contains(errOut, `"loadMs":0.000,"evalMs":0.000,"outputMs":0.000`) {
		t.Fatalf("exit %d, stderr %q; want 2 and zero phases", code, errOut)
	}
}
