package jql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// run evaluates query over data written to a file named dataName and renders
// the results, warnings or errors.
func run(t *testing.T, query, dataName, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), dataName)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Eval(context.Background(), query, File{Path: p})
	f := syntax.NewFile("query", query)
	var b strings.Builder
	var qe *QueryError
	switch {
	case errors.As(err, &qe):
		for _, d := range qe.Diagnostics {
			fmt.Fprintf(&b, "error %s\n", d.Format(f))
		}
		return b.String()
	case err != nil:
		return "data error: " + err.Error() + "\n"
	}
	for _, d := range res.Warnings {
		fmt.Fprintf(&b, "warning %s\n", d.Format(f))
	}
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEvalGolden runs testdata/jql/eval/*.txtar: sections "query", "data"
// (file name from the optional "dataname" section, default data.json) and
// the expected "out".
func TestEvalGolden(t *testing.T) {
	golden.Run(t, "../../testdata/jql/eval/*.txtar", func(t *testing.T, c *golden.Case) {
		name := strings.TrimSpace(c.InputOr("dataname", "data.json"))
		c.Want("out", run(t, c.Input("query"), name, c.Input("data")))
	})
}

// TestDirectoryData reads sessions.jsonl and activities.jsonl from a directory.
func TestDirectoryData(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "sessions.jsonl"), []byte(`{"id":"s-1","state":"completed","createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:02.5Z"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "activities.jsonl"), []byte(`{"id":"a-1","type":"sessionCompleted"}`+"\n"), 0o644)
	res, err := Eval(context.Background(), `{from: 'sessions', select: ['durationMs']}`, File{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Docs[0]); got != `{"id":"s-1","durationMs":2500}` {
		t.Errorf("sessions: got %s", got)
	}
	res, err = Eval(context.Background(), `{from: 'activities', select: ['summary']}`, File{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Docs[0]); got != `{"id":"a-1","summary":"Session completed"}` {
		t.Errorf("activities: got %s", got)
	}
}

// TestCancel stops evaluation when the context is cancelled.
func TestCancel(t *testing.T) {
	mem := Memory{}
	for i := range 5000 {
		mem["activities"] = append(mem["activities"], fmt.Appendf(nil, `{"id":"a-%d"}`, i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Eval(ctx, `{from: 'activities'}`, mem); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestPagination walks all pages with startAfter and checks they partition
// the ordered collection, in both orders, with createTime ties.
func TestPagination(t *testing.T) {
	mem := Memory{}
	for i := range 57 {
		mem["activities"] = append(mem["activities"], fmt.Appendf(nil, `{"id":"a-%02d","createTime":"2024-01-01T00:00:%02dZ"}`, i, i/3))
	}
	for _, order := range []string{"asc", "desc"} {
		var all []string
		cursor := ""
		for page := 0; page < 20; page++ {
			q := fmt.Sprintf(`{from: 'activities', select: ['id'], order: '%s', limit: 10`, order)
			if cursor != "" {
				q += fmt.Sprintf(`, startAfter: '%s'`, cursor)
			}
			res, err := Eval(context.Background(), q+"}", mem)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Docs) == 0 {
				break
			}
			for _, d := range res.Docs {
				all = append(all, string(d))
			}
			cursor = strings.TrimSuffix(strings.TrimPrefix(string(res.Docs[len(res.Docs)-1]), `{"id":"`), `"}`)
		}
		if len(all) != 57 {
			t.Fatalf("%s: %d documents over all pages, want 57", order, len(all))
		}
		seen := map[string]bool{}
		for _, d := range all {
			if seen[d] {
				t.Fatalf("%s: %s on two pages", order, d)
			}
			seen[d] = true
		}
		if order == "desc" && all[0] != `{"id":"a-54"}` || order == "asc" && all[0] != `{"id":"a-00"}` {
			t.Errorf("%s: first %s", order, all[0])
		}
	}
}

// TestPrefilterEscapes checks that the raw-bytes pre-filter never drops a
// document that spells the literal with escapes, and that other escapes do
// not defeat it.
func TestPrefilterEscapes(t *testing.T) {
	mem := Memory{"activities": {
		[]byte(`{"id":"a1","sessionId":"s\u002d42","createTime":"2024-01-01T00:00:01Z"}`),
		[]byte(`{"id":"a2","sessionId":"s-42","title":"x\ny","createTime":"2024-01-01T00:00:02Z"}`),
		[]byte(`{"id":"a3","sessionId":"s-43","title":"x\ny"}`),
		[]byte(`{"id":"a4","sessionId":"a\/b"}`),
	}}
	res, err := Eval(context.Background(), `{from: 'activities', select: ['id'], where: {sessionId: {in: ['s-42', 'a/b']}}}`, mem)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Docs {
		got = append(got, string(d))
	}
	if strings.Join(got, " ") != `{"id":"a2"} {"id":"a1"} {"id":"a4"}` {
		t.Errorf("got %v", got)
	}
	if mayContain([]byte(`{"a":"x\ny"}`), []byte(`"s-42"`)) {
		t.Errorf("a \\n escape must not defeat the pre-filter")
	}
}
