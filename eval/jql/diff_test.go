package jql_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	evjql "github.com/ctxql/ctxql/eval/jql"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// TestDifferential compares the evaluator with the reference evaluator of
// ref_test.go on generated data (nested arrays, missing fields, createTime
// ties, extreme and oddly spelled timestamps, unicode, escapes) and
// generated queries written in each of the three text forms: results,
// warnings, cursor errors and the Explain counts must agree. A short
// fixed-seed run is part of `go test`; JQL_DIFF_TIME=10m runs random seeds
// for that long (scripts/fuzz does).
func TestDifferential(t *testing.T) {
	if d := os.Getenv("JQL_DIFF_TIME"); d != "" {
		dur, err := time.ParseDuration(d)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		seed := uint64(start.UnixNano())
		cases := 0
		for time.Since(start) < dur && !t.Failed() {
			diffRound(t, seed, 20)
			seed++
			cases += 20
		}
		t.Logf("%d queries, each in 3 text forms, in %v, last seed %d, no disagreement", cases, time.Since(start).Round(time.Second), seed-1)
		return
	}
	for seed := uint64(1); seed <= 15; seed++ {
		diffRound(t, seed, 20)
	}
}

// diffRound generates one data set and n queries from seed, and checks each
// query in every text form.
func diffRound(t *testing.T, seed uint64, n int) {
	t.Helper()
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6a716c))}
	mem := evjql.Memory{}
	for _, dom := range []string{"activities", "sessions"} {
		for i := range g.r.IntN(40) {
			mem[dom] = append(mem[dom], []byte(g.doc(dom, i)))
		}
	}
	for range n {
		q := g.query(mem)
		ref, err := reval(q, mem[q.from])
		if err != nil {
			t.Fatalf("seed %d: reference cannot read the data: %v", seed, err)
		}
		for _, form := range []string{"json", "object-literal", "yaml"} {
			src := g.render(q, form)
			if msg := compare(src, ref, q, mem); msg != "" {
				t.Fatalf("seed %d, %s form: %s\nquery:\n%s\ndata:\n%s", seed, form, msg, src, dumpData(mem[q.from]))
			}
		}
	}
}

func dumpData(docs [][]byte) string {
	var b strings.Builder
	for _, d := range docs {
		b.Write(d)
		b.WriteByte('\n')
	}
	return b.String()
}

// compare evaluates and explains src and returns what disagrees with ref.
func compare(src string, ref *rresult, q rquery, mem evjql.Memory) string {
	res, err := evjql.Eval(context.Background(), src, mem)
	var qe *evjql.QueryError
	if ref.badCursor {
		if !errors.As(err, &qe) || !strings.Contains(err.Error(), "InvalidCursor") {
			return fmt.Sprintf("want an InvalidCursor error, got %v", err)
		}
		for _, ld := range loadedForms(mem) {
			_, err := evjql.EvalQueryOptions(context.Background(), parse(src), nil, ld.t, evjql.Options{Workers: ld.workers})
			if !errors.As(err, &qe) || !strings.Contains(err.Error(), "InvalidCursor") {
				return fmt.Sprintf("%s: want an InvalidCursor error, got %v", ld.name, err)
			}
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("evaluation failed: %v", err)
	}
	var got []string
	for _, d := range res.Docs {
		n, err := rdecode(d)
		if err != nil {
			return fmt.Sprintf("invalid output %s: %v", d, err)
		}
		got = append(got, n.String())
	}
	if strings.Join(got, "\n") != strings.Join(ref.docs, "\n") {
		return fmt.Sprintf("results differ\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(ref.docs, "\n"))
	}
	if len(res.Warnings) != ref.warnings {
		return fmt.Sprintf("%d warnings, want %d: %v", len(res.Warnings), ref.warnings, res.Warnings)
	}
	if msg := compareLoaded(src, res, mem); msg != "" {
		return msg
	}
	pq, ds := syn.ParseQuery(src)
	ex, err := evjql.Explain(context.Background(), pq, ds, mem)
	if err != nil {
		return fmt.Sprintf("explain failed: %v", err)
	}
	var steps []int
	for _, s := range ex.Steps {
		steps = append(steps, s.Left)
	}
	limit := q.limit
	if limit == 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	if ex.Total != ref.total || fmt.Sprint(steps) != fmt.Sprint(ref.steps) || ex.AfterCursor != ref.afterCursor || ex.Returned != min(ref.afterCursor, limit) {
		return fmt.Sprintf("explain: total %d steps %v after cursor %d returned %d; want %d %v %d %d",
			ex.Total, steps, ex.AfterCursor, ex.Returned, ref.total, ref.steps, ref.afterCursor, min(ref.afterCursor, limit))
	}
	return ""
}

// loaded is the data loaded into a Table, evaluated with some workers.
type loaded struct {
	name    string
	t       *evjql.Table
	workers int
}

// loadedForms loads mem into Tables of one segment and of segments of 3
// documents, evaluated by 1 and by 4 workers: every form must give the
// streaming evaluator's result.
func loadedForms(mem evjql.Memory) []loaded {
	var out []loaded
	for _, size := range []int{0, 3} {
		for _, w := range []int{1, 4} {
			// A fresh Table each: its first query may scan the bytes,
			// the next ones read the columns.
			var t *evjql.Table
			var err error
			if size == 0 {
				t, err = evjql.Load(context.Background(), mem)
			} else {
				t, err = evjql.LoadSegments(context.Background(), mem, size)
			}
			if err != nil {
				panic(err)
			}
			out = append(out, loaded{fmt.Sprintf("loaded (segments of %d, %d workers)", size, w), t, w})
		}
	}
	return out
}

func parse(src string) *syn.Query {
	q, _ := syn.ParseQuery(src)
	return q
}

// compareLoaded evaluates src over mem loaded in every form, and over
// mem's documents as JSON Lines in blocks of 1 byte (a line each) and 200
// bytes with 1 and 4 workers, and returns what differs from res, the
// streaming evaluator's result.
func compareLoaded(src string, res *evjql.Result, mem evjql.Memory) string {
	q, ds := syn.ParseQuery(src)
	dom := "activities"
	if q.From != nil && q.Domain() != "" {
		dom = q.Domain()
	}
	lines := dumpData(mem[dom])
	if strings.Count(lines, "\n") == len(mem[dom]) {
		for _, size := range []int{1, 200} {
			for _, w := range []int{1, 4} {
				got, err := evjql.EvalQueryOptions(context.Background(), q, ds, evjql.Bytes{Name: "a.jsonl", Data: []byte(lines)},
					evjql.WithBlockSize(evjql.Options{Workers: w}, size))
				if err != nil {
					return fmt.Sprintf("JSON Lines (blocks of %d, %d workers): %v", size, w, err)
				}
				if !slices.EqualFunc(got.Docs, res.Docs, func(a, b []byte) bool { return string(a) == string(b) }) {
					return fmt.Sprintf("JSON Lines (blocks of %d, %d workers): results differ\n got:\n%s\nwant:\n%s", size, w, dumpData(got.Docs), dumpData(res.Docs))
				}
			}
		}
	}
	for _, ld := range loadedForms(mem) {
		for _, pass := range []string{"first query", "second query"} {
			got, err := evjql.EvalQueryOptions(context.Background(), q, ds, ld.t, evjql.Options{Workers: ld.workers})
			if err != nil {
				return fmt.Sprintf("%s, %s: %v", ld.name, pass, err)
			}
			if !slices.EqualFunc(got.Docs, res.Docs, func(a, b []byte) bool { return string(a) == string(b) }) {
				return fmt.Sprintf("%s, %s: results differ\n got:\n%s\nwant:\n%s", ld.name, pass, dumpData(got.Docs), dumpData(res.Docs))
			}
			if len(got.Warnings) != len(res.Warnings) {
				return fmt.Sprintf("%s, %s: %d warnings, want %d", ld.name, pass, len(got.Warnings), len(res.Warnings))
			}
		}
	}
	return ""
}

// ---- generation ----

type gen struct {
	r   *rand.Rand
	ids []string
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

var fixedTimes = []string{
	"2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", "2024-01-01t00:00:00z",
	"2024-01-01T00:00:00.000Z", "2023-12-31T19:00:00-05:00", "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.123456789123Z",
	"0000-01-01T00:00:00Z", "0000-01-01T00:30:00+01:00", "9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59-23:59",
	"1600-01-01T00:00:00Z", "3000-01-01T00:00:00Z", "2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224191Z",
	"2024-02-29T12:00:00Z", "2023-02-29T00:00:00Z", "2024-01-01T00:00:60Z", "2024-01-01T00:00:00,5Z", "2024-01-01T24:00:00Z",
	"2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00.Z", "2024-01-01 00:00:00Z", "yesterday", "", "2024-01-01T00:00:00",
}

func (g *gen) time() string {
	if g.chance(0.6) {
		return g.pick(fixedTimes...)
	}
	s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", g.r.IntN(10000), 1+g.r.IntN(12), 1+g.r.IntN(31), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60))
	if g.chance(0.4) {
		s += "." + fmt.Sprintf("%012d", g.r.IntN(1000000000000))[:1+g.r.IntN(12)]
	}
	if g.chance(0.5) {
		return s + "Z"
	}
	sign := g.pick("+", "-")
	return s + fmt.Sprintf("%s%02d:%02d", sign, g.r.IntN(24), g.r.IntN(60))
}

var strPool = []string{"Hello", "hello", "HÉLLO wörld", "日本語のテキスト", "emoji 😀 here", "İstanbul", "\u212a", "k", "a/b", `quote"back\slash`,
	"tab\there", "line\nbreak", "", "npm test", "NPM TEST", "s-1", "s-2", "bashOutput", "media", "changeSet", "x", "zz", "ÅÄÖ", "\u00e9", "e\u0301"}

func (g *gen) str() string {
	if g.chance(0.15) {
		return g.time()
	}
	if g.chance(0.1) {
		return strings.Repeat(g.pick(strPool...), 1+g.r.IntN(70))
	}
	return g.pick(strPool...)
}

var numPool = []string{"0", "1", "2", "3", "-1", "-2", "127", "3.5", "1e2", "100", "-0", "0.1", "1E+1", "10", "9007199254740993"}

// jsonStr writes s as a JSON string, escaping some characters that need
// no escape (\u00XX, \/, surrogate pairs) to exercise the pre-filter.
func (g *gen) jsonStr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		case c == '/' && g.chance(0.5):
			b.WriteString(`\/`)
		case g.chance(0.04):
			if c >= 0x10000 {
				c -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(c>>10), 0xDC00+(c&0x3ff))
			} else {
				fmt.Fprintf(&b, `\u%04X`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// obj writes an object from key/value pairs in a shuffled order.
func (g *gen) obj(kv ...string) string {
	type pair struct{ k, v string }
	var ps []pair
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			ps = append(ps, pair{kv[i], kv[i+1]})
		}
	}
	g.r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(g.jsonStr(p.k) + ":" + p.v)
	}
	b.WriteByte('}')
	return b.String()
}

// maybe returns v or, sometimes, "" (the field is left out).
func (g *gen) maybe(p float64, v string) string {
	if g.chance(p) {
		return v
	}
	return ""
}

func (g *gen) arr(n int, elem func() string) string {
	var parts []string
	for range n {
		parts = append(parts, elem())
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// odd is a value of an unexpected kind for a field.
func (g *gen) odd() string {
	return g.pick("null", "true", "false", "7", `"str"`, "[]", "{}", `[1,"a",null]`, `{"x":{"y":1}}`)
}

func (g *gen) scalar() string {
	switch g.r.IntN(5) {
	case 0:
		return g.pick(numPool...)
	case 1:
		return g.pick("true", "false", "null")
	}
	return g.jsonStr(g.str())
}

func (g *gen) artifact() string {
	switch g.r.IntN(12) {
	case 0:
		return g.scalar()
	case 1:
		return g.arr(g.r.IntN(3), g.artifact)
	}
	gitPatch := g.obj("unidiffPatch", g.maybe(0.7, g.jsonStr(g.str())), "baseCommitId", g.maybe(0.7, g.jsonStr(g.str())),
		"suggestedCommitMessage", g.maybe(0.7, g.jsonStr(g.str())))
	cs := g.obj("source", g.maybe(0.7, g.jsonStr(g.str())), "gitPatch", g.maybe(0.7, gitPatch))
	return g.obj(
		"type", g.maybe(0.85, g.jsonStr(g.pick("bashOutput", "media", "changeSet", "other"))),
		"command", g.maybe(0.4, g.jsonStr(g.str())),
		"stdout", g.maybe(0.2, g.jsonStr(g.str())),
		"stderr", g.maybe(0.2, g.jsonStr(g.str())),
		"exitCode", g.maybe(0.5, g.pick(append(numPool, `"1"`, "null", "[1,2]")...)),
		"format", g.maybe(0.2, g.jsonStr(g.str())),
		"data", g.maybe(0.3, g.jsonStr(g.str())),
		"changeSet", g.maybe(0.3, g.pick(cs, cs, g.odd())),
		"extra", g.maybe(0.1, g.odd()),
	)
}

func (g *gen) step() string {
	if g.chance(0.1) {
		return g.scalar()
	}
	if g.chance(0.05) {
		return g.arr(g.r.IntN(3), g.step)
	}
	return g.obj("id", g.maybe(0.6, g.jsonStr(g.str())), "title", g.maybe(0.7, g.jsonStr(g.str())),
		"description", g.maybe(0.3, g.jsonStr(g.str())), "index", g.maybe(0.7, g.pick(numPool...)))
}

func (g *gen) id(dom string, i int) string {
	id := g.pick("a", "ä", "s", "S", "a-", "日") + strconv.Itoa(i)
	if dom == "sessions" {
		id = "s" + id
	}
	g.ids = append(g.ids, id)
	return id
}

func (g *gen) doc(dom string, i int) string {
	ct := g.maybe(0.9, g.pick(g.jsonStr(g.time()), g.jsonStr(g.time()), g.jsonStr(g.time()), "12"))
	if dom == "sessions" {
		out := g.obj("source", g.maybe(0.7, g.jsonStr(g.str())), "githubRepoContext", g.maybe(0.5, g.obj("startingBranch", g.maybe(0.8, g.jsonStr(g.str())))))
		return g.obj(
			"id", g.jsonStr(g.id(dom, i)),
			"name", g.maybe(0.3, g.jsonStr(g.str())),
			"state", g.maybe(0.8, g.jsonStr(g.pick("queued", "planning", "completed", "failed", "inProgress", "Completed"))),
			"title", g.maybe(0.7, g.jsonStr(g.str())),
			"prompt", g.maybe(0.5, g.jsonStr(g.str())),
			"createTime", ct,
			"updateTime", g.maybe(0.8, g.jsonStr(g.time())),
			"requirePlanApproval", g.maybe(0.5, g.pick("true", "false", "null")),
			"sourceContext", g.maybe(0.5, g.pick(out, out, g.odd())),
			"outputs", g.maybe(0.5, g.arr(g.r.IntN(3), func() string {
				return g.obj("type", g.maybe(0.8, g.jsonStr(g.pick("pullRequest", "other"))),
					"pullRequest", g.maybe(0.6, g.obj("url", g.maybe(0.8, g.jsonStr(g.str())), "title", g.maybe(0.5, g.jsonStr(g.str())))))
			})),
			"durationMs", g.maybe(0.1, "5"),
			"flag", g.maybe(0.1, g.odd()),
		)
	}
	plan := g.obj("id", g.maybe(0.8, g.jsonStr(g.str())), "steps", g.maybe(0.8, g.pick(g.arr(g.r.IntN(4), g.step), g.arr(g.r.IntN(4), g.step), g.odd())),
		"createTime", g.maybe(0.3, g.jsonStr(g.time())))
	return g.obj(
		"id", g.jsonStr(g.id(dom, i)),
		"type", g.maybe(0.9, g.jsonStr(g.pick("agentMessaged", "userMessaged", "planGenerated", "planApproved", "progressUpdated", "sessionCompleted", "sessionFailed", "weird"))),
		"createTime", ct,
		"originator", g.maybe(0.7, g.jsonStr(g.pick("agent", "user", "system"))),
		"sessionId", g.maybe(0.8, g.jsonStr(g.pick("s-1", "s-2", "s/3", "ş-4"))),
		"message", g.maybe(0.3, g.jsonStr(g.str())),
		"title", g.maybe(0.3, g.jsonStr(g.str())),
		"description", g.maybe(0.3, g.jsonStr(g.str())),
		"reason", g.maybe(0.2, g.jsonStr(g.str())),
		"planId", g.maybe(0.1, g.jsonStr(g.str())),
		"plan", g.maybe(0.4, g.pick(plan, plan, plan, g.odd())),
		"artifacts", g.maybe(0.6, g.pick(g.arr(g.r.IntN(4), g.artifact), g.arr(g.r.IntN(4), g.artifact), g.odd())),
		"summary", g.maybe(0.05, `"stored summary"`),
		"artifactCount", g.maybe(0.05, "99"),
		"flag", g.maybe(0.1, g.odd()),
	)
}

// filterable lists the where paths and their kinds: s string, t timestamp,
// n number, b boolean, o object or array of objects.
var filterable = map[string][][2]string{
	"activities": {{"id", "s"}, {"name", "s"}, {"type", "s"}, {"createTime", "t"}, {"originator", "s"}, {"sessionId", "s"}, {"message", "s"},
		{"plan", "o"}, {"plan.id", "s"}, {"plan.steps", "o"}, {"plan.steps[]", "o"}, {"plan.steps.title", "s"}, {"plan.steps[].index", "n"}, {"plan.steps.index", "n"},
		{"plan.createTime", "t"}, {"planId", "s"}, {"title", "s"}, {"description", "s"}, {"reason", "s"},
		{"artifacts", "o"}, {"artifacts.type", "s"}, {"artifacts[].command", "s"}, {"artifacts.stdout", "s"}, {"artifacts.exitCode", "n"},
		{"artifacts.data", "s"}, {"artifacts.changeSet", "o"}, {"artifacts.changeSet.source", "s"}, {"artifacts.changeSet.gitPatch", "o"},
		{"artifacts.changeSet.gitPatch.baseCommitId", "s"}},
	"sessions": {{"id", "s"}, {"state", "s"}, {"title", "s"}, {"prompt", "s"}, {"createTime", "t"}, {"updateTime", "t"},
		{"requirePlanApproval", "b"}, {"sourceContext", "o"}, {"sourceContext.source", "s"}, {"sourceContext.githubRepoContext.startingBranch", "s"},
		{"outputs", "o"}, {"outputs.type", "s"}, {"outputs[].pullRequest.url", "s"}},
}

var extraSelect = []string{"*", "flag", "id.x", "summary.x", "plan[]", "nonexistent.field", "ünï.cödé", "type[]", "artifacts[].type",
	"plan.steps[].title", "durationMs", "artifactCount", "summary", "plan.steps.title.x"}

func (g *gen) lit(kind string) rlit {
	switch {
	case kind == "n" || kind == "any" && g.chance(0.25):
		return rlit{kind: 'n', str: g.pick("0", "1", "2", "3", "-1", "3.5", "100", "10", "127")}
	case kind == "b" || kind == "any" && g.chance(0.1):
		return rlit{kind: 'b', b: g.chance(0.5)}
	case kind == "any" && g.chance(0.1):
		return rlit{kind: 'z'}
	case kind == "t" || g.chance(0.2):
		return rlit{kind: 's', str: g.time()}
	}
	return rlit{kind: 's', str: g.str()}
}

// sample returns, when it can, a literal for a value found in the data at
// path, so that filters often match some documents and not others.
func (g *gen) sample(mem evjql.Memory, dom, path string, kind string) (rlit, bool) {
	docs := mem[dom]
	if len(docs) == 0 {
		return rlit{}, false
	}
	d, _ := rdecode(docs[g.r.IntN(len(docs))])
	names, _ := rsplit(dom, path)
	vals := rvalues(d, names)
	if len(vals) == 0 {
		return rlit{}, false
	}
	v := vals[g.r.IntN(len(vals))]
	var l rlit
	switch v.kind {
	case 's':
		l = rlit{kind: 's', str: v.str}
	case 'n':
		if _, err := strconv.ParseFloat(v.num.String(), 64); err != nil {
			return rlit{}, false
		}
		l = rlit{kind: 'n', str: v.num.String()}
	case 'b':
		l = rlit{kind: 'b', b: v.b}
	case 'z':
		l = rlit{kind: 'z'}
	default:
		return rlit{}, false
	}
	if kind != "any" && (l.kind == 'n') != (kind == "n") {
		return rlit{}, false
	}
	return l, true
}

func (g *gen) query(mem evjql.Memory) rquery {
	q := rquery{from: g.pick("activities", "sessions")}
	switch {
	case g.chance(0.2):
	case g.chance(0.05):
		q.hasSelect = true
	default:
		q.hasSelect = true
		paths := append(slices.Clone(rschema[q.from]), extraSelect...)
		for range 1 + g.r.IntN(5) {
			p := g.pick(paths...)
			if p != "*" && g.chance(0.3) {
				p = "-" + p
			}
			q.sel = append(q.sel, p)
		}
	}
	seen := map[string]bool{}
	for range []int{0, 1, 1, 1, 2, 2, 3}[g.r.IntN(7)] {
		f := filterable[q.from][g.r.IntN(len(filterable[q.from]))]
		if seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		w := rwhere{path: f[0]}
		kind := f[1]
		var ops []string
		switch kind {
		case "o":
			ops = []string{"exists"}
		case "n":
			ops = []string{"eq", "neq", "in", "gt", "lt", "gte", "lte", "exists"}
		case "b":
			ops = []string{"eq", "neq", "in", "exists"}
		default:
			ops = []string{"eq", "neq", "in", "contains", "gt", "lt", "gte", "lte", "exists"}
		}
		g.r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		for _, op := range ops[:1+g.r.IntN(min(3, len(ops)))] {
			o := rop{op: op}
			if l, ok := g.sample(mem, q.from, w.path, g.pick(kind, "any")); ok && g.chance(0.6) && op != "exists" && op != "in" && op != "contains" {
				if op == "eq" || op == "neq" || (l.kind == 'n') == (kind == "n") && (l.kind == 's' || l.kind == 'n') {
					o.lit = l
					w.ops = append(w.ops, o)
					continue
				}
			}
			switch op {
			case "exists":
				o.yes = g.chance(0.5)
			case "in":
				for range g.r.IntN(4) {
					if l, ok := g.sample(mem, q.from, w.path, "any"); ok && g.chance(0.6) {
						o.in = append(o.in, l)
						continue
					}
					o.in = append(o.in, g.lit(g.pick(kind, "any")))
				}
			case "contains":
				s := g.str()
				if r := []rune(s); len(r) > 3 && g.chance(0.5) {
					s = string(r[1:3])
				}
				o.lit = rlit{kind: 's', str: s}
			case "eq", "neq":
				o.lit = g.lit(g.pick(kind, kind, "any"))
			default:
				o.lit = g.lit(kind)
				if kind == "n" {
					o.lit = g.lit("n")
				} else {
					o.lit.kind, o.lit.b = 's', false
					if o.lit.str == "" {
						o.lit.str = g.time()
					}
				}
			}
			w.ops = append(w.ops, o)
		}
		if len(w.ops) == 1 && w.ops[0].op == "eq" && g.chance(0.5) {
			w.shorthand = true
		}
		q.where = append(q.where, w)
	}
	q.order = g.pick("", "asc", "desc")
	if g.chance(0.6) {
		q.limit = 1 + g.r.IntN(12)
	} else if g.chance(0.05) {
		q.limit = 1500
	}
	if g.chance(0.25) && len(mem[q.from]) > 0 {
		n, _ := rdecode(mem[q.from][g.r.IntN(len(mem[q.from]))])
		q.startAfter = n.get("id").str
	} else if g.chance(0.03) {
		q.startAfter = "no-such-id"
	}
	return q
}

// ---- rendering in the three text forms ----

func (g *gen) render(q rquery, form string) string {
	var parts [][2]string // key, rendered value
	s := func(v string) string { return g.quote(v, form) }
	key := func(k string) string {
		switch form {
		case "json":
			return s(k)
		case "yaml":
			return `"` + yamlEscape(k) + `"`
		}
		if isIdent(k) && g.chance(0.7) {
			return k
		}
		return s(k)
	}
	lit := func(l rlit) string {
		switch l.kind {
		case 's':
			return s(l.str)
		case 'n':
			if form == "yaml" {
				f, _ := strconv.ParseFloat(l.str, 64)
				return strconv.FormatFloat(f, 'f', -1, 64)
			}
			return l.str
		case 'b':
			return strconv.FormatBool(l.b)
		}
		return "null"
	}
	flowObj := func(kv [][2]string) string {
		var b strings.Builder
		b.WriteString("{")
		for i, p := range kv {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p[0] + ": " + p[1])
		}
		if form == "object-literal" && len(kv) > 0 && g.chance(0.3) {
			b.WriteString(",")
		}
		b.WriteString("}")
		return b.String()
	}
	flowArr := func(xs []string) string {
		out := "[" + strings.Join(xs, ", ")
		if form == "object-literal" && len(xs) > 0 && g.chance(0.3) {
			out += ","
		}
		return out + "]"
	}
	fromV := s(q.from)
	if form == "object-literal" && g.chance(0.5) {
		fromV = q.from
	}
	parts = append(parts, [2]string{"from", fromV})
	if q.hasSelect {
		var xs []string
		for _, x := range q.sel {
			xs = append(xs, s(x))
		}
		parts = append(parts, [2]string{"select", flowArr(xs)})
	}
	if len(q.where) > 0 || g.chance(0.05) {
		var ws [][2]string
		for _, w := range q.where {
			if w.shorthand {
				ws = append(ws, [2]string{key(w.path), lit(w.ops[0].lit)})
				continue
			}
			var ops [][2]string
			for _, o := range w.ops {
				var v string
				switch o.op {
				case "exists":
					v = strconv.FormatBool(o.yes)
				case "in":
					var xs []string
					for _, l := range o.in {
						xs = append(xs, lit(l))
					}
					v = flowArr(xs)
				default:
					v = lit(o.lit)
				}
				ops = append(ops, [2]string{key(o.op), v})
			}
			ws = append(ws, [2]string{key(w.path), flowObj(ops)})
		}
		if form == "yaml" && len(ws) > 0 && g.chance(0.5) {
			var b strings.Builder
			for _, p := range ws {
				b.WriteString("\n  " + p[0] + ": " + p[1])
			}
			parts = append(parts, [2]string{"where", b.String()})
		} else {
			parts = append(parts, [2]string{"where", flowObj(ws)})
		}
	}
	if q.order != "" {
		parts = append(parts, [2]string{"order", s(q.order)})
	}
	if q.limit != 0 {
		parts = append(parts, [2]string{"limit", strconv.Itoa(q.limit)})
	}
	if q.startAfter != "" {
		parts = append(parts, [2]string{"startAfter", s(q.startAfter)})
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	if form == "yaml" {
		var b strings.Builder
		if g.chance(0.3) {
			b.WriteString("# a query\n")
		}
		for _, p := range parts {
			if strings.HasPrefix(p[1], "\n") {
				b.WriteString(p[0] + ":" + p[1] + "\n")
			} else {
				b.WriteString(p[0] + ": " + p[1] + "\n")
			}
		}
		return b.String()
	}
	var kv [][2]string
	for _, p := range parts {
		kv = append(kv, [2]string{key(p[0]), p[1]})
	}
	out := flowObj(kv)
	if form == "object-literal" && g.chance(0.3) {
		out = "// a query\n" + strings.Replace(out, "{", "{ /* c */", 1)
	}
	return out
}

func isIdent(s string) bool {
	if s == "" || s == "true" || s == "false" || s == "null" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// quote writes a string literal for the form: JSON escapes, single quotes
// in the object-literal form (sometimes), YAML double quotes.
func (g *gen) quote(s, form string) string {
	switch form {
	case "yaml":
		return `"` + yamlEscape(s) + `"`
	case "object-literal":
		if g.chance(0.5) {
			var b strings.Builder
			b.WriteByte('\'')
			for _, c := range s {
				switch {
				case c == '\'' || c == '\\':
					b.WriteByte('\\')
					b.WriteRune(c)
				case c == '\n':
					b.WriteString(`\n`)
				case c == '\t':
					b.WriteString(`\t`)
				case c < 0x20:
					fmt.Fprintf(&b, `\u%04x`, c)
				default:
					b.WriteRune(c)
				}
			}
			b.WriteByte('\'')
			return b.String()
		}
	}
	return g.jsonStr(s)
}

func yamlEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
