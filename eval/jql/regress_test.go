package jql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// evalDocs evaluates query over activities and sessions given as JSON Lines
// and returns the result documents joined by spaces.
func evalDocs(t *testing.T, query, activities, sessions string) string {
	t.Helper()
	mem := Memory{}
	for _, l := range strings.Split(strings.TrimSpace(activities), "\n") {
		if l != "" {
			mem["activities"] = append(mem["activities"], []byte(l))
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(sessions), "\n") {
		if l != "" {
			mem["sessions"] = append(mem["sessions"], []byte(l))
		}
	}
	res, err := Eval(context.Background(), query, mem)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, d := range res.Docs {
		out = append(out, string(d))
	}
	return strings.Join(out, " ")
}

// TestExclusionsAddNoStructure: exclusions beside inclusions only remove;
// they never add the excluded field's parents.
func TestExclusionsAddNoStructure(t *testing.T) {
	data := `{"id":"a1","type":"progressUpdated","plan":{"id":"p"},"artifacts":[{"type":"media","data":"x"}]}`
	for q, want := range map[string]string{
		`{from:"activities",select:["type","-artifacts.data","-plan.steps"]}`:        `{"id":"a1","type":"progressUpdated"}`,
		`{from:"activities",select:["artifacts","-artifacts.data"]}`:                 `{"id":"a1","artifacts":[{"type":"media"}]}`,
		`{from:"activities",select:["plan.id","-plan.steps","-artifacts.data"]}`:     `{"id":"a1","plan":{"id":"p"}}`,
		`{from:"activities",select:["-artifacts.data","-summary","-artifactCount"]}`: `{"id":"a1","type":"progressUpdated","plan":{"id":"p"},"artifacts":[{"type":"media"}]}`,
	} {
		if got := evalDocs(t, q, data, ""); got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestTimesOverTheWholeRange: ordering, cursors and durationMs hold for
// every RFC 3339 year, 0000 to 9999, and for offsets.
func TestTimesOverTheWholeRange(t *testing.T) {
	acts := `{"id":"a","createTime":"2024-06-01T00:00:00Z"}
{"id":"b","createTime":"3000-01-01T00:00:00Z"}
{"id":"c","createTime":"1600-01-01T00:00:00Z"}
{"id":"d","createTime":"0000-01-01T00:00:00Z"}
{"id":"e","createTime":"9999-12-31T23:59:59.999999999Z"}
{"id":"f","createTime":"3000-01-01T01:00:00+01:00"}
{"id":"g","createTime":"2262-04-11T23:47:16.854775808Z"}`
	if got, want := evalDocs(t, `{from:"activities",select:["id"],order:"asc"}`, acts, ""),
		`{"id":"d"} {"id":"c"} {"id":"a"} {"id":"g"} {"id":"b"} {"id":"f"} {"id":"e"}`; got != want {
		t.Errorf("asc:\n got %s\nwant %s", got, want)
	}
	if got, want := evalDocs(t, `{from:"activities",select:["id"]}`, acts, ""),
		`{"id":"e"} {"id":"b"} {"id":"f"} {"id":"g"} {"id":"a"} {"id":"c"} {"id":"d"}`; got != want {
		t.Errorf("desc:\n got %s\nwant %s", got, want)
	}
	if got, want := evalDocs(t, `{from:"activities",select:["id"],order:"asc",startAfter:"a",limit:2}`, acts, ""),
		`{"id":"g"} {"id":"b"}`; got != want {
		t.Errorf("cursor asc: got %s, want %s", got, want)
	}
	if got, want := evalDocs(t, `{from:"activities",select:["id"],startAfter:"b"}`, acts, ""),
		`{"id":"f"} {"id":"g"} {"id":"a"} {"id":"c"} {"id":"d"}`; got != want {
		t.Errorf("cursor desc: got %s, want %s", got, want)
	}
	if got, want := evalDocs(t, `{from:"activities",select:["id"],where:{createTime:{gt:"2262-04-11T23:47:16.854775807Z",lt:"9999-01-01T00:00:00Z"}},order:"asc"}`, acts, ""),
		`{"id":"g"} {"id":"b"} {"id":"f"}`; got != want {
		t.Errorf("range: got %s, want %s", got, want)
	}
	sess := `{"id":"s1","createTime":"1600-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"}
{"id":"s2","createTime":"0000-01-01T00:00:00Z","updateTime":"9999-12-31T23:59:59.999Z"}
{"id":"s3","createTime":"2024-01-01T00:00:00.9995Z","updateTime":"2024-01-01T00:00:00.0004Z"}
{"id":"s4","createTime":"2024-01-01T00:00:00Z","updateTime":"2023-12-31T23:59:59.9999Z"}`
	if got, want := evalDocs(t, `{from:"sessions",select:["durationMs"],order:"asc"}`, "", sess),
		`{"id":"s2","durationMs":315569519999999} {"id":"s1","durationMs":13380163200000} {"id":"s4","durationMs":0} {"id":"s3","durationMs":-999}`; got != want {
		t.Errorf("durationMs:\n got %s\nwant %s", got, want)
	}
}

// TestUnknownSelectPaths: a select path the schema does not know selects
// nothing, so it leaves the output as if it were absent.
func TestUnknownSelectPaths(t *testing.T) {
	data := `{"id":"a1","type":"planGenerated","summary":"stored","flag":true,"plan":{"id":"p","steps":[{"title":"x"}]}}`
	for q, want := range map[string]string{
		`{from:"activities",select:["id.x"]}`:               `{"id":"a1"}`,
		`{from:"activities",select:["id","summary.x"]}`:     `{"id":"a1"}`,
		`{from:"activities",select:["id","flag"]}`:          `{"id":"a1"}`,
		`{from:"activities",select:["plan[]"]}`:             `{"id":"a1"}`,
		`{from:"activities",select:["plan[].id","type"]}`:   `{"id":"a1","type":"planGenerated"}`,
		`{from:"activities",select:["-flag","-plan.x"]}`:    `{"id":"a1","type":"planGenerated","flag":true,"plan":{"id":"p","steps":[{"title":"x"}]},"artifactCount":0,"summary":"Plan generated with 1 step"}`,
		`{from:"activities",select:["summary"]}`:            `{"id":"a1","summary":"Plan generated with 1 step"}`,
		`{from:"activities",select:["plan.steps[].title"]}`: `{"id":"a1","plan":{"steps":[{"title":"x"}]}}`,
	} {
		if got := evalDocs(t, q, data, ""); got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestHalfPresentPaths: a selected path the document lacks adds no empty
// parent objects; arrays on the path stay, and so do their object elements.
func TestHalfPresentPaths(t *testing.T) {
	data := `{"id":"a1","plan":{"id":"p"}}
{"id":"a2","plan":{"steps":[]}}
{"id":"a3","plan":{"steps":[{"id":"s"},"str",{"title":"t"}]}}
{"id":"a4","plan":"not an object"}`
	got := evalDocs(t, `{from:"activities",select:["plan.steps.title"]}`, data, "")
	want := `{"id":"a1"} {"id":"a2","plan":{"steps":[]}} {"id":"a3","plan":{"steps":[{},{"title":"t"}]}} {"id":"a4"}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestOperatorsShareOneElement: the operators of one filter object hold for
// one and the same array element.
func TestOperatorsShareOneElement(t *testing.T) {
	data := `{"id":"a1","artifacts":[{"exitCode":3},{"exitCode":0}]}
{"id":"a2","artifacts":[{"exitCode":3},{"exitCode":1}]}
{"id":"a3","artifacts":[{"exitCode":1,"type":"bashOutput"}]}`
	for q, want := range map[string]string{
		`{from:"activities",select:["id"],where:{"artifacts.exitCode":{gt:0,lt:2}}}`:                          `{"id":"a2"} {"id":"a3"}`,
		`{from:"activities",select:["id"],where:{"artifacts.exitCode":{gt:0},"artifacts[].exitCode":{lt:2}}}`: `{"id":"a1"} {"id":"a2"} {"id":"a3"}`,
		`{from:"activities",select:["id"],where:{"artifacts.exitCode":{neq:3,exists:true}}}`:                  `{"id":"a1"} {"id":"a2"} {"id":"a3"}`,
		`{from:"activities",select:["id"],where:{"artifacts.exitCode":{in:[0,1],neq:0}}}`:                     `{"id":"a2"} {"id":"a3"}`,
	} {
		if got := evalDocs(t, q, data, ""); got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestTimesCompareAsInstants: eq, neq and in compare times as instants, as
// gt and lt do, so {gte: X, lte: X} and {eq: X} agree.
func TestTimesCompareAsInstants(t *testing.T) {
	data := `{"id":"a1","createTime":"2024-01-01T01:00:00+01:00"}
{"id":"a2","createTime":"2024-01-01T00:00:00.000Z"}
{"id":"a3","createTime":"2024-01-01T00:00:01Z"}
{"id":"a4","createTime":"2024-01-01t00:00:00z"}`
	all := `{"id":"a1"} {"id":"a2"} {"id":"a4"}`
	for q, want := range map[string]string{
		`{from:"activities",select:["id"],where:{createTime:{eq:"2024-01-01T00:00:00Z"}}}`:                             all,
		`{from:"activities",select:["id"],where:{createTime:"2024-01-01T00:00:00Z"}}`:                                  all,
		`{from:"activities",select:["id"],where:{createTime:{gte:"2024-01-01T00:00:00Z",lte:"2024-01-01T00:00:00Z"}}}`: all,
		`{from:"activities",select:["id"],where:{createTime:{in:["2024-01-01T00:00:00Z"]}}}`:                           all,
		`{from:"activities",select:["id"],where:{createTime:{neq:"2024-01-01T00:00:00Z"}}}`:                            `{"id":"a3"}`,
	} {
		if got := evalDocs(t, q, data, ""); got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestResultBudget: a result over the byte budget fails with an error that
// names the limit and the flag raising it; a larger budget lets it through.
func TestResultBudget(t *testing.T) {
	mem := Memory{}
	for i := range 50 {
		mem["activities"] = append(mem["activities"], []byte(`{"id":"a`+strings.Repeat("x", i)+`","message":"`+strings.Repeat("m", 1000)+`"}`))
	}
	q, ds := parse(`{from: 'activities', select: ['*']}`)
	_, err := EvalQueryOptions(context.Background(), q, ds, mem, Options{MaxBytes: 10_000})
	var be *BudgetError
	if !errors.As(err, &be) || be.Max != 10_000 || !strings.Contains(err.Error(), "--max-bytes") || !strings.Contains(err.Error(), "10000 bytes") {
		t.Fatalf("got %v, want a BudgetError naming 10000 bytes and --max-bytes", err)
	}
	res, err := EvalQueryOptions(context.Background(), q, ds, mem, Options{MaxBytes: 100_000})
	if err != nil || len(res.Docs) != 50 {
		t.Fatalf("got %v, %d docs", err, len(res.Docs))
	}
	if _, err := EvalQueryOptions(context.Background(), q, ds, mem, Options{MaxBytes: -1}); err != nil {
		t.Fatal(err)
	}
}

func parse(src string) (*syn.Query, []syntax.Diagnostic) { return syn.ParseQuery(src) }

// endless is a Source that never ends and ignores its context.
type endless struct{}

func (endless) Scan(_ context.Context, _ string, fn func([]byte) error) error {
	for i := 0; ; i++ {
		if err := fn([]byte(`{"id":"a` + strconv.Itoa(i) + `","type":"agentMessaged"}`)); err != nil {
			return err
		}
	}
}

// TestDeadline: an evaluation stops at its deadline even over a Source that
// does not watch the context.
func TestDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	for _, q := range []string{
		`{from: 'activities', where: {type: 'agentMessaged'}}`,
		`{from: 'activities', startAfter: 'a-never'}`,
	} {
		_, err := Eval(ctx, q, endless{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: got %v, want context.DeadlineExceeded", q, err)
		}
		qq, ds := syn.ParseQuery(q)
		if _, err := Explain(ctx, qq, ds, endless{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("explain %s: got %v, want context.DeadlineExceeded", q, err)
		}
	}
}

// TestManySelectPaths: 100,000 select paths, known and unknown, evaluate to
// the projection of the known ones (BenchmarkManySelectPaths measures the
// cost per path).
func TestManySelectPaths(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"from": "activities", "select": ["plan.id"`)
	for i := range 50_000 {
		fmt.Fprintf(&b, `, "p%d", "-plan.steps.x%d"`, i, i)
	}
	b.WriteString(`]}`)
	mem := Memory{"activities": {[]byte(`{"id":"a1","p7":1,"plan":{"id":"x","steps":[]}}`)}}
	res, err := Eval(context.Background(), b.String(), mem)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Docs) != 1 || string(res.Docs[0]) != `{"id":"a1","plan":{"id":"x"}}` || len(res.Warnings) != 100_000 {
		t.Fatalf("got %d docs %q, %d warnings", len(res.Docs), res.Docs, len(res.Warnings))
	}
}

// BenchmarkManySelectPaths evaluates queries of 10,000 and 100,000 select
// paths over 1,000 documents and reports the time per path, which stays
// flat when evaluation is linear in the number of paths.
func BenchmarkManySelectPaths(b *testing.B) {
	mem := Memory{}
	for i := range 1000 {
		mem["activities"] = append(mem["activities"], fmt.Appendf(nil, `{"id":"a%d","type":"progressUpdated","plan":{"id":"x"}}`, i))
	}
	for _, n := range []int{10_000, 100_000} {
		var q strings.Builder
		q.WriteString(`{"from": "activities", "limit": 1000, "select": ["id"`)
		for i := range n {
			fmt.Fprintf(&q, `, "plan.p%d"`, i)
		}
		q.WriteString(`]}`)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				if _, err := Eval(context.Background(), q.String(), mem); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/path")
		})
	}
}
