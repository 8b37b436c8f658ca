package cli

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestEvalProfile checks that --profile prints the --explain lines with a
// time on each and then the slowest steps: the counts are --explain's.
// TestEvalDatalogProfile checks Datalog's.
func TestEvalProfile(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"pact", []string{"eval", "pact", "--dialect", "v1", "--data", "../testdata/pact/spec-v1-fixture.json", "@t0 ^seq .mt:depth(1-2) .cb[ttl<=1]"}},
		{"jql", []string{"eval", "jql", "--data", "../testdata/examples/activities.json", "{from: 'activities', where: {sessionId: 's-1', type: 'agentMessaged'}}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(flag string) []string {
				var out, errb bytes.Buffer
				args := append(append(tc.args[:2:2], flag), tc.args[2:]...)
				if code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}); code != 0 {
					t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
				}
				return strings.Split(strings.TrimSpace(out.String()), "\n")
			}
			explain, profile := run("--explain"), run("--profile")
			if len(profile) < len(explain)+2 {
				t.Fatalf("--profile printed\n%s", strings.Join(profile, "\n"))
			}
			timed := regexp.MustCompile(`\s+\d+(\.\d+)?(ns|µs|ms|s)$`)
			for i, line := range explain[:len(explain)-1] {
				if got := timed.ReplaceAllString(profile[i], ""); got != line {
					t.Errorf("step %d: --profile %q, --explain %q", i, profile[i], line)
				}
				if !timed.MatchString(profile[i]) {
					t.Errorf("step %d has no time: %q", i, profile[i])
				}
			}
			if profile[len(explain)-1] != explain[len(explain)-1] || !strings.HasPrefix(profile[len(explain)], "slowest steps (of ") {
				t.Errorf("summary and slowest steps:\n%s", strings.Join(profile[len(explain)-1:], "\n"))
			}
		})
	}
}

// TestEvalDatalogProfile checks that "eval datalog --profile" prints a line
// per rule with the tuples it derived, which add up to the tuples the
// program derives beyond its data, then the slowest rules.
func TestEvalDatalogProfile(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"eval", "datalog", "--profile", "--data", "../testdata/examples/graph.json", "--rules", "../testdata/examples/reach.dl"}
	if code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	rule := regexp.MustCompile(`^(\d+:\d+)\s+(.+?)\s+(\d+)\s+\d+(\.\d+)?(ns|µs|ms|s)$`)
	derived := map[string]int{}
	n := 0
	for _, l := range lines {
		m := rule.FindStringSubmatch(l)
		if m == nil {
			break
		}
		var c int
		fmt.Sscan(m[3], &c)
		derived[strings.SplitN(m[2], "(", 2)[0]] += c
		n++
	}
	// reach.dl over graph.json: reach has 9 tuples, cycle 2, sink 1.
	if n != 4 || derived["reach"] != 9 || derived["cycle"] != 2 || derived["sink"] != 1 {
		t.Errorf("rules %d, derived %v:\n%s", n, derived, out.String())
	}
	if lines[n] != "12 tuple(s) derived by 4 rule(s)" || !strings.HasPrefix(lines[n+1], "slowest steps (of ") {
		t.Errorf("summary:\n%s", strings.Join(lines[n:], "\n"))
	}
}
