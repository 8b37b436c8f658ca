package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPlayServesUntilInterrupted runs `ctxql play PATH`, loads the printed
// address and interrupts it; a PATH outside the project is a usage error.
func TestPlayServesUntilInterrupted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q.pact"), []byte(".cb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := Main(context.Background(), []string{"play", "--dir", dir, "../q.pact"}, Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}); code != ExitUsage {
		t.Errorf("PATH outside the project: exit %d (%s), want %d", code, stderr.String(), ExitUsage)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"play", "--dir", dir, "q.pact"}, Env{Stdout: pw, Stderr: &bytes.Buffer{}})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	m := regexp.MustCompile(`^ctxql play: serving (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})\n$`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("the first line %q (%v) is not the address", line, err)
	}
	url := m[1]
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Errorf("GET %s: %s %v", url, resp.Status, resp.Header)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Errorf("interrupted: exit %d, want %d", code, ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ctxql play did not stop when interrupted")
	}
}
