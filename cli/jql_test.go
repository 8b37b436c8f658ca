package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const jqlTestData = `{"activities": [
 {"id":"a1","sessionId":"s-1","type":"progressUpdated","createTime":"2024-01-01T00:00:01Z","title":"Build","artifacts":[{"type":"bashOutput","command":"npm build","exitCode":2}]},
 {"id":"a2","sessionId":"s-1","type":"agentMessaged","createTime":"2024-01-01T00:00:02Z","message":"Hi"}
], "sessions": [{"id":"s-1","state":"completed","title":"T","createTime":"2024-01-01T00:00:00Z"}]}`

func writeJQLData(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, []byte(jqlTestData), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

// TestEvalJQLContract checks stdout, stderr and the exit code of
// `ctxql eval jql` for success, each query error kind and usage errors.
func TestEvalJQLContract(t *testing.T) {
	data := writeJQLData(t)
	qf := filepath.Join(t.TempDir(), "q.jql.yaml")
	os.WriteFile(qf, []byte("from: activities\nselect: [id, artifacts.exitCode]\nwhere:\n  artifacts.exitCode: {neq: 0}\n"), 0o644)
	pos := regexp.MustCompile(`\d+:\d+`)
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // exact JSON (compared semantically) when set
		stderrRe string
	}{
		{"json", []string{"eval", "jql", "--data", data, `{"from": "activities", "select": ["id"], "order": "asc"}`}, 0, `[{"id":"a1"},{"id":"a2"}]`, ""},
		{"object-literal", []string{"eval", "jql", "--data", data, `{from: 'sessions', select: ['state'],}`}, 0, `[{"id":"s-1","state":"completed"}]`, ""},
		{"yaml", []string{"eval", "jql", "--data", data, "from: activities\nwhere: {type: agentMessaged}\nselect: [summary]"}, 0, `[{"id":"a2","summary":"Hi"}]`, ""},
		{"query-file", []string{"eval", "jql", "--data", data, "--query-file", qf}, 0, `[{"id":"a1","artifacts":[{"exitCode":2}]}]`, ""},
		{"InvalidDomain", []string{"eval", "jql", "--data", data, `{"from": "users"}`}, 1, "", "InvalidDomain"},
		{"InvalidPath", []string{"eval", "jql", "--data", data, `{"from": "activities", "where": {"artifacts.nope": 1}}`}, 1, "", "InvalidPath"},
		{"InvalidOperator", []string{"eval", "jql", "--data", data, `{"from": "activities", "where": {"type": {"like": "x"}}}`}, 1, "", "InvalidOperator"},
		{"InvalidCursor", []string{"eval", "jql", "--data", data, `{"from": "activities", "startAfter": "nope"}`}, 1, "", "InvalidCursor"},
		{"syntax", []string{"eval", "jql", "--data", data, `{"from": "activities",`}, 1, "", "SyntaxError"},
		{"missing data flag", []string{"eval", "jql", `{"from": "activities"}`}, 2, "", "--data"},
		{"unreadable data", []string{"eval", "jql", "--data", "/nonexistent/x.json", `{"from": "activities"}`}, 2, "", "nonexistent"},
		{"missing query", []string{"eval", "jql", "--data", data}, 2, "", "missing QUERY"},
		{"bad data", []string{"eval", "jql", "--data", writeBad(t), `{"from": "activities"}`}, 2, "", "data"},
		{"unknown flag", []string{"eval", "jql", "--nope"}, 2, "", "unknown flag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errs)
			}
			if tc.stdout != "" {
				var got, want any
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("stdout not JSON: %q", out)
				}
				json.Unmarshal([]byte(tc.stdout), &want)
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Errorf("stdout %s, want %s", g, w)
				}
			}
			if tc.code != 0 && out != "" {
				t.Errorf("stdout on failure: %q", out)
			}
			if tc.stderrRe != "" && !strings.Contains(errs, tc.stderrRe) {
				t.Errorf("stderr %q lacks %q", errs, tc.stderrRe)
			}
			if tc.code == 1 && !pos.MatchString(errs) {
				t.Errorf("stderr %q has no line:col", errs)
			}
		})
	}
}

func writeBad(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(p, []byte("{\"id\": \"a1\"}\n{not json\n"), 0o644)
	return p
}

// TestSchemaJQL checks both schema outputs.
func TestSchemaJQL(t *testing.T) {
	out, errs, code := runCLI("schema", "jql")
	if code != 0 || !strings.Contains(out, "domain activities") || !strings.Contains(out, "artifactCount: number [computed]") || !strings.Contains(out, "gitPatch: GitPatch") {
		t.Fatalf("text schema: exit %d, stderr %q, out:\n%s", code, errs, out)
	}
	out, _, code = runCLI("schema", "jql", "--json")
	var s struct {
		Domains []struct {
			Name          string   `json:"name"`
			DefaultSelect []string `json:"defaultSelect"`
		} `json:"domains"`
		Operators []string `json:"operators"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || len(s.Domains) != 2 || s.Domains[1].Name != "activities" || len(s.Operators) != 9 {
		t.Fatalf("json schema: exit %d, %+v", code, s)
	}
	if _, _, code := runCLI("schema", "sql"); code != 2 {
		t.Errorf("unknown language: exit %d, want 2", code)
	}
}

// TestEvalJQLBinary runs the built ctxql binary as a subprocess.
func TestEvalJQLBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ctxql")
	build := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	data := writeJQLData(t)
	cmd := exec.Command(bin, "eval", "jql", "--data", data, `{from: 'activities', select: ['id'], where: {'artifacts.exitCode': {neq: 0}}}`)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v, stderr %s", err, errb.String())
	}
	if strings.Join(strings.Fields(out.String()), "") != `[{"id":"a1"}]` {
		t.Errorf("stdout %q", out.String())
	}
	cmd = exec.Command(bin, "eval", "jql", "--data", data, `{"from": "activities", "where": {"nope": 1}}`)
	errb.Reset()
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "1:") || !strings.Contains(errb.String(), "InvalidPath") {
		t.Errorf("invalid query: %v, stderr %q", err, errb.String())
	}
}
