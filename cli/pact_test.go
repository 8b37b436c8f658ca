package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runPact(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"eval", "pact"}, args...), Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

// TestEvalPactContract checks stdout, stderr and exit codes of ctxql eval pact.
func TestEvalPactContract(t *testing.T) {
	v1 := "../testdata/pact/spec-v1-fixture.json"
	hist := "../testdata/pact/history.json"
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	cases := []struct {
		args       []string
		code       int
		out, errIn string
	}{
		{[]string{"--dialect", "v1", "--data", v1, "@t0 ^seq .mt:depth(1,2)"}, 0, "[\"mt:1\",\"mt:2\"]\n", ""},
		{[]string{"--data", v1, "@t0 ^seq .mt:depth(1-2) > .cb"}, 0, "[\"cb:u1\",\"cb:a1\"]\n", ""},
		{[]string{"--dialect", "v1", "--data", v1, "@t0 ^seq .mt:depth()"}, 1, "", "1:20: "},
		{[]string{"--dialect", "v1", "--data", v1, "@t-1 .cb"}, 1, "", "1:1: snapshot @t-1 does not exist"},
		{[]string{"--dialect", "v3", "--data", v1, ".cb"}, 2, "", "--dialect"},
		{[]string{".cb"}, 2, "", "--data is required"},
		{[]string{"--data", "/nonexistent/x.json", ".cb"}, 2, "", "read data"},
		{[]string{"--data", bad, ".cb"}, 2, "", "invalid data"},
		{[]string{"--data", v1, "--options", "{\"bogus\":1}", ".cb"}, 2, "", "invalid options"},
		{[]string{"--data", v1}, 2, "", ""},
		{[]string{"--data", hist, "--options", "{\"maxSnapshots\":1}", "@t-1..@t0 .cb"}, 0, "\"truncated\": true", ""},
	}
	for _, c := range cases {
		out, errs, code := runPact(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errs)
		}
		if c.code == 0 && !strings.Contains(out, c.out) {
			t.Errorf("%v: stdout %q, want %q", c.args, out, c.out)
		}
		if c.code == 0 && c.out != "" && strings.HasPrefix(c.out, "[") && out != c.out {
			t.Errorf("%v: stdout %q, want exactly %q", c.args, out, c.out)
		}
		if !strings.Contains(errs, c.errIn) {
			t.Errorf("%v: stderr %q, want it to contain %q", c.args, errs, c.errIn)
		}
		if c.code != 0 && out != "" {
			t.Errorf("%v: stdout %q on failure", c.args, out)
		}
	}
}

// TestEvalPactBinary builds the ctxql binary and runs the README's first
// command as a subprocess.
func TestEvalPactBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/ctxql").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "eval", "pact", "--dialect", "v1", "--data", "../testdata/pact/spec-v1-fixture.json", "@t0 ^seq .mt:depth(1) > .cb")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if string(out) != "[\"cb:a1\"]\n" {
		t.Fatalf("stdout %q", out)
	}
	cmd = exec.Command(bin, "eval", "pact", "--data", "../testdata/pact/spec-v1-fixture.json", "@t0 ^seq .mt:depth()")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.HasPrefix(stderr.String(), "1:") {
		t.Fatalf("invalid selector: err %v, stderr %q", err, stderr.String())
	}
}
