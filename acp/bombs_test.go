package acp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/ostest"
)

// jqBombs are jq queries of a few bytes whose evaluation allocates far
// more than any budget, each through an operation that builds its result
// in one step: concatenation (+, +=, interpolation) of strings and arrays
// that double, repetition, the encoding of a value whose parts are shared
// (tojson, tostring, @text, flatten, the result itself, an error's value),
// formats (@base64, @html), ascii_downcase, explode, split, splits, join, add,
// implode, fromjson, assignment past an array's end, and an array
// collected from range.
var jqBombs = []string{
	`[limit(40; "a" | recurse(. + .))] | length`,
	`[limit(40; [1] | recurse(. + .))] | length`,
	`reduce range(40) as $i ("a"; . += .) | length`,
	`reduce range(40) as $i ("a"; "\(.)\(.)") | length`,
	`"x" * 1e10 | length`,
	`("x" * 1e8) as $s | $s * 30 | length`,
	`[range(1e10)] | length`,
	`[limit(1e9; repeat(65))] | implode | length`,
	`[range(1000)] | reduce range(24) as $i (.; [., .]) | tojson | length`,
	`[range(1000)] | reduce range(24) as $i (.; [., .]) | tostring | length`,
	`[range(1000)] | reduce range(24) as $i (.; [., .]) | @text "\(.)" | length`,
	`[range(1000)] | reduce range(24) as $i (.; [., .]) | flatten | length`,
	`[range(1000)] | reduce range(24) as $i (.; [., .])`,
	`[range(1000)] | reduce range(24) as $i (.; [., .]) | error`,
	`"x" * 2e8 | @base64 | length`,
	`"<" * 1e8 | @html | length`,
	`"X" * 2e8 | ascii_downcase | length`,
	`"x" * 2e7 | explode | length`,
	`"x" * 2e7 | split("") | length`,
	`"x" * 2e7 | [splits("")] | length`,
	`("x" * 1e6) as $s | [range(2000) | $s] | join("") | length`,
	`("x" * 1e6) as $s | [range(2000) | $s] | add | length`,
	`[range(1e4)] as $r | [range(1e5) | $r] | add | length`,
	`"[" + ("[]," * 2e7) + "[]]" | fromjson | length`,
	`null | .[536870911] = 1 | length`,
	`null | .[536870911] |= 1 | length`,
	`null | setpath([536870911]; 1) | length`,
}

// bombChild is the environment variable that makes the test binary run
// one jq query under a memory budget (CTXQL_JQ_BOMB=BUDGET:QUERY), wait
// for any work the budget abandoned to stop, and print the error.
const bombChild = "CTXQL_JQ_BOMB"

// runBombChild is the child's side of bombPeak.
func runBombChild(spec string) {
	budget, expr, _ := strings.Cut(spec, ":")
	var max int64
	fmt.Sscan(budget, &max)
	q, err := acp.CompileJQ(expr)
	if err == nil {
		before := runtime.NumGoroutine()
		_, err = q.Run(context.Background(), nil, acp.JQLimits{Timeout: 60 * time.Second, MaxMemoryBytes: max})
		// The evaluation may go on after Run returns: wait for it to stop,
		// so that what it allocates on the way counts.
		for deadline := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	fmt.Println(err)
}

// bombPeak runs expr in a child process under a memory budget of max
// bytes and returns the child's peak resident memory and what it printed.
func bombPeak(t testing.TB, expr string, max int64) (int64, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%s", bombChild, max, expr))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: the child failed: %v\n%s", expr, err, out)
	}
	peak, ok := ostest.PeakRSS(cmd.ProcessState)
	if !ok {
		t.Skip("the platform reports no peak resident memory")
	}
	return peak, strings.TrimSpace(string(out))
}

// TestJQBombs runs each of jqBombs in a process of its own under a memory
// budget of 256 MiB: each is refused with an error naming the flag that
// raises the limit it reached, and the process's peak resident memory,
// over that of a process that runs ".", stays within 1.5 times the budget,
// even once any work the budget abandoned has stopped.
func TestJQBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of megabytes per query")
	}
	const budget = 256 << 20
	base, out := bombPeak(t, ".", budget)
	if out != "<nil>" {
		t.Fatalf(".: %s", out)
	}
	for _, expr := range jqBombs {
		t.Run(expr, func(t *testing.T) {
			peak, out := bombPeak(t, expr, budget)
			if !strings.Contains(out, "(raise with --max-") {
				t.Errorf("not refused with a limit error: %s", out)
			}
			grew := peak - base
			t.Logf("peak %d MiB over the baseline (%.2f× the budget): %s", grew>>20, float64(grew)/budget, out)
			if grew > budget*3/2 {
				t.Errorf("peak %d MiB over the baseline, more than 1.5× the %d MiB budget", grew>>20, budget>>20)
			}
		})
	}
}

// BenchmarkJQBombs prints, for each of jqBombs run under the default memory
// budget (1 GiB) in a process of its own, the peak resident memory over
// that of a process that runs "." (peak-MiB) and its ratio to the budget
// (peak/budget, at most 1.5). Run it with -benchtime=1x.
func BenchmarkJQBombs(b *testing.B) {
	const budget = 1 << 30 // the default memory budget of the jq sandbox
	base, _ := bombPeak(b, ".", budget)
	for i, expr := range jqBombs {
		b.Run(fmt.Sprint(i), func(b *testing.B) {
			var grew int64
			for b.Loop() {
				peak, _ := bombPeak(b, expr, budget)
				grew = peak - base
			}
			b.ReportMetric(float64(grew)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(grew)/budget, "peak/budget")
			b.Logf("%s: peak %d MiB over the baseline, %.2f× the budget", expr, grew>>20, float64(grew)/budget)
		})
	}
}

// TestJQGuardsAgreeWithGojq checks that the rewrites behind the memory
// checks (+, +=, the assignments, string interpolation, collected arrays)
// and the shadowed built-ins give gojq's own results, in gojq's order, on
// queries with several outputs, formats and paths.
func TestJQGuardsAgreeWithGojq(t *testing.T) {
	input := map[string]any{"a": []any{1, 2, 3}, "b": map[string]any{"c": "x<y>&'\"z", "d": nil}, "s": "héllo wörld", "n": 3.5}
	for _, expr := range []string{
		`.a + .a`, `.s + "!" + .s`, `.b + {"e": 1}`, `null + .a`, `(1, 2) + (10, 20)`, `("a", "b") + ("c", "d")`,
		`[.a[] + 1]`, `.a | add`, `add(.a[])`, `[.a[] | tostring] | add`, `map(. * 2)`, `map(., .)`, `[limit(5; repeat(1))]`,
		`.a[0] = 9`, `.a[] = (7, 8)`, `.b.c |= ascii_upcase`, `.a[] += 1`, `.a += [4]`, `.s += ("x", "y")`, `.n -= 1`, `.n *= 2`,
		`.b.d //= "z"`, `.a[1:] = ["q"]`, `.x.y[2] = 1`, `.a |= map(. + 1)`, `setpath(["b", "e"]; 1)`, `reduce .a[] as $x (""; . + ($x | tostring))`,
		`"\(.a)-\(.s)"`, `"\(1, 2)-\(3, 4)"`, `@base64 "a\(.s)b"`, `@html "<\(.b.c)>"`, `@json "v=\(.a)"`, `@text "\(.n)"`, `@csv "\(.a)"`, `@sh "echo \(.s)"`,
		`@uri "\(.b.c)"`, `@base32 "\(.s)"`, `.s | @base64`, `.s | @base32`, `.a | @csv`, `.a | @tsv`, `.b.c | @html`, `.b | tojson`, `.b | tostring`,
		`.s | explode | implode`, `.s | split("l")`, `.s | split("")`, `.a | join("-")`, `[.a, [.a]] | flatten`, `[.a, [.a]] | flatten(1)`,
		`.s | ascii_downcase`, `.b | tojson | fromjson`, `{"k\(.n)": 1}`, `to_entries`, `[paths]`, `try error({"a": 1}) catch .`,
		`"x" * 3`, `{"a": {"b": 1}} * {"a": {"c": 2}}`, `.a as [$p, $q] | $p + $q`, `[.a[] as $x | $x + $x]`, `def f: . + 1; [.a[] | f]`,
	} {
		q, err := gojq.Parse(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		code, err := gojq.Compile(q)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		var want []any
		iter := code.Run(input)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := v.(error); ok {
				want = append(want, "error: "+err.Error())
				break
			}
			want = append(want, v)
		}
		j, err := acp.CompileJQ(expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		got, err := j.Run(context.Background(), input, acp.JQLimits{})
		if err != nil {
			got = append(got, "error: "+strings.TrimPrefix(err.Error(), "jq: "))
		}
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("%s:\n got %#v\nwant %#v", expr, got, want)
		}
	}
}

// TestJQInternalNamesReserved checks that a query can neither call the
// sandbox's unchecked aliases of the built-ins nor replace its checks.
func TestJQInternalNamesReserved(t *testing.T) {
	for _, expr := range []string{
		`null | _ctxql_b_setpath([536870911]; 1)`,
		`def _ctxql_cost(a; b): .; [range(10)] | tojson`,
		`def _ctxql_addcheck(a; b): a; "a" + "b"`,
		`def _ctxql_tick: .; [1]`,
	} {
		if _, err := acp.CompileJQ(expr); err == nil || !strings.Contains(err.Error(), "are reserved") {
			t.Errorf("%s: error %v, want names starting with _ctxql_ reserved", expr, err)
		}
	}
}
