package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestEvalProfile checks that --profile prints the --explain lines with a
// time on each and then the slowest steps: the counts are --explain's.
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
