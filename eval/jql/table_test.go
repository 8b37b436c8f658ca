package jql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// tableQueries exercise every kind of condition, both orders, a cursor and
// a projection; over tableDocs they each return documents.
var tableQueries = []string{
	`{from: 'activities', select: ['id', 'artifacts.exitCode'], where: {'artifacts.exitCode': {gt: 0}}, order: 'asc'}`,
	`{from: 'activities', where: {createTime: {gte: '2024-01-01T00:00:05+00:00'}, type: {in: ['progressUpdated', 'agentMessaged']}}, limit: 4}`,
	`{from: 'activities', where: {message: {contains: 'REVIEW'}}, startAfter: 'a008'}`,
	`{from: 'activities', where: {title: {exists: false}, sessionId: {neq: 's-1'}}, order: 'asc', limit: 3}`,
	`{from: 'sessions', select: ['*'], where: {state: 'completed'}}`,
	`{from: 'sessions', where: {state: {in: ['failed']}, createTime: {lt: '2024-01-05T00:00:00Z'}}}`,
}

// tableDocs returns n activities and sessions as JSON documents: repeated
// createTimes (ties), nested artifacts, missing fields, a few values of
// other kinds.
func tableDocs(n int) (acts, sess []string) {
	for i := range n {
		var extra string
		switch i % 4 {
		case 0:
			extra = fmt.Sprintf(`,"title":"Run %d","artifacts":[{"exitCode":%d},{"exitCode":null},{"command":"ls"}]`, i, i%3)
		case 1:
			extra = `,"message":"Ready for review"`
		case 2:
			extra = `,"artifacts":{"exitCode":"2"}`
		}
		acts = append(acts, fmt.Sprintf(`{"id":"a%03d","sessionId":"s-%d","type":%q,"createTime":"2024-01-01T00:00:%02dZ"%s}`,
			i, i%3, []string{"progressUpdated", "agentMessaged", "planGenerated"}[i%3], i/2%60, extra))
	}
	for i := range n / 4 {
		sess = append(sess, fmt.Sprintf(`{"id":"s-%d","state":%q,"createTime":"2024-01-0%dT00:00:00Z","title":"T%d"}`,
			i, []string{"completed", "failed"}[i%2], 1+i%9, i))
	}
	return acts, sess
}

// TestTableShapes loads the same data from every shape a File reads (JSON
// Lines, a JSON array, an object of domains, YAML, a directory, bytes in
// memory) and checks that every query returns, over the Table, exactly
// what the streaming evaluation returns over the file.
func TestTableShapes(t *testing.T) {
	acts, sess := tableDocs(40)
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrapped := `{"sessions": [` + strings.Join(sess, ",") + `], "activities": [` + strings.Join(acts, ",") + `]}`
	var yml strings.Builder
	yml.WriteString("activities:\n")
	for _, a := range acts {
		yml.WriteString("  - " + a + "\n")
	}
	yml.WriteString("sessions:\n")
	for _, s := range sess {
		yml.WriteString("  - " + s + "\n")
	}
	write("d/activities.jsonl", strings.Join(acts, "\n")+"\n\n")
	write("d/sessions.json", "["+strings.Join(sess, ",")+"]")
	sources := map[string]Source{
		"jsonl":   File{Path: write("a.jsonl", "\n"+strings.Join(acts, "\r\n")+"\n")},
		"array":   File{Path: write("a.json", " ["+strings.Join(acts, ",\n")+"]")},
		"wrapped": File{Path: write("w.json", wrapped)},
		"yaml":    File{Path: write("w.yaml", yml.String())},
		"dir":     File{Path: filepath.Join(dir, "d")},
		"bytes":   Bytes{Name: "w.json", Data: []byte(wrapped)},
		"memory":  Memory{"activities": toBytes(acts), "sessions": toBytes(sess)},
	}
	for name, src := range sources {
		tb, err := Load(context.Background(), src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, q := range tableQueries {
			want, werr := Eval(context.Background(), q, src)
			// Files of one domain's documents serve them to sessions
			// queries too, which then find nothing.
			if werr != nil || name == "wrapped" && len(want.Docs) == 0 {
				t.Fatalf("%s: %s: %v, no documents", name, q, werr)
			}
			for _, w := range []int{1, 3} {
				pq, ds := parseForTest(q)
				got, gerr := EvalQueryOptions(context.Background(), pq, ds, tb, Options{Workers: w})
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("%s, %d workers, %s: error %v, want %v", name, w, q, gerr, werr)
				}
				if werr == nil && docsText(got) != docsText(want) {
					t.Errorf("%s, %d workers, %s:\n got %s\nwant %s", name, w, q, docsText(got), docsText(want))
				}
			}
		}
	}
}

// TestTableConcurrent evaluates every query many times at once on one
// fresh Table of small segments, so that columns are built while other
// evaluations read them, with 1 to 4 workers each: every result must be
// the streaming evaluation's. It is meant for -race.
func TestTableConcurrent(t *testing.T) {
	acts, sess := tableDocs(200)
	mem := Memory{"activities": toBytes(acts), "sessions": toBytes(sess)}
	tb, err := LoadSegments(context.Background(), mem, 16)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, q := range tableQueries {
		res, err := Eval(context.Background(), q, mem)
		if err != nil {
			t.Fatal(err)
		}
		want[q] = docsText(res)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range len(tableQueries) * 2 {
				q := tableQueries[(g+i)%len(tableQueries)]
				pq, ds := parseForTest(q)
				res, err := EvalQueryOptions(context.Background(), pq, ds, tb, Options{Workers: 1 + (g+i)%4})
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := docsText(res); got != want[q] {
					errs <- fmt.Sprintf("%s:\n got %s\nwant %s", q, got, want[q])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestTableBadData: a document that is not JSON is a DataError of every
// query that tests a field of its domain, the next evaluation too; an
// unreadable data directory fails the load as the streaming scan fails.
func TestTableBadData(t *testing.T) {
	tb, err := Load(context.Background(), Bytes{Name: "a.jsonl", Data: []byte("{\"id\":\"a\"}\n{\"id\":\n")})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := Eval(context.Background(), `{from: 'activities'}`, tb)
		var de *DataError
		if !errors.As(err, &de) {
			t.Fatalf("got %v, want a DataError", err)
		}
	}
	if _, err := Load(context.Background(), File{Path: filepath.Join(t.TempDir(), "missing.json")}); !errors.As(err, new(*DataError)) {
		t.Fatalf("missing file: got %v, want a DataError", err)
	}
}

func parseForTest(src string) (*syn.Query, []syntax.Diagnostic) { return syn.ParseQuery(src) }

func toBytes(docs []string) [][]byte {
	out := make([][]byte, len(docs))
	for i, d := range docs {
		out[i] = []byte(d)
	}
	return out
}

func docsText(r *Result) string {
	var b strings.Builder
	for _, d := range r.Docs {
		b.Write(d)
		b.WriteByte('\n')
	}
	return b.String()
}
