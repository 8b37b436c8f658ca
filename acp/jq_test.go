package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/budget"
)

// TestJQSandbox checks that jq sees no environment even when one is set,
// and that modules, input files and the input builtins are refused.
func TestJQSandbox(t *testing.T) {
	t.Setenv("CTXQL_SECRET", "hunter2")
	for _, expr := range []string{"$ENV", "env", "$ENV.CTXQL_SECRET", "env.CTXQL_SECRET"} {
		q, err := acp.CompileJQ(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		res, err := q.Run(context.Background(), map[string]any{}, acp.JQLimits{})
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v %v", expr, res, err)
		}
		if m, ok := res[0].(map[string]any); (ok && len(m) != 0) || (!ok && res[0] != nil) {
			t.Errorf("%s = %v, want an empty environment", expr, res[0])
		}
	}
	for _, expr := range []string{`import "x" as x; .`, `include "x"; .`, `import "x" as $x; .`, "input", "inputs", "input_filename", `$__prog_args`} {
		q, err := acp.CompileJQ(expr)
		if err == nil {
			_, err = q.Run(context.Background(), nil, acp.JQLimits{})
		}
		if err == nil {
			t.Errorf("%s: not refused", expr)
		}
	}
}

// TestJQLimits checks that endless queries stop at the deadline whether or
// not they emit values, and at the result-count and size caps.
func TestJQLimits(t *testing.T) {
	for _, c := range []struct {
		expr string
		lim  acp.JQLimits
		want string
	}{
		{"repeat(1)", acp.JQLimits{Timeout: 5 * time.Second, MaxResults: 100}, "more than 100 results"},
		{"range(1e18)", acp.JQLimits{Timeout: 5 * time.Second, MaxResults: 1000}, "more than 1000 results"},
		{"last(range(1e18))", acp.JQLimits{Timeout: 100 * time.Millisecond}, "timed out"},
		{"[repeat(1)] | length", acp.JQLimits{Timeout: 100 * time.Millisecond}, "timed out"},
		{`[range(100000)] | tostring`, acp.JQLimits{MaxBytes: 1000}, "larger than 1000 bytes"},
	} {
		q, err := acp.CompileJQ(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = q.Run(context.Background(), nil, c.lim)
		if !errors.Is(err, acp.ErrJQLimit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.expr, err, c.want)
		}
	}
}

// TestJQBoundedBuiltinsAgreeWithGojq checks the sandbox's replacements of
// the regular expression and index built-ins against gojq's own, on
// strings with multi-byte characters, empty matches, captures, flags and
// replacements with several outputs.
func TestJQBoundedBuiltinsAgreeWithGojq(t *testing.T) {
	inputs := []any{"", "a", "aaa", "abc", "héllo wörld, héllo", "a,b,,c", "x😀y😀z", "ab\ncd\nAB", "test 123 test 45"}
	exprs := []string{
		`[match("")]`, `[match("a*"; "g")]`, `[match("(?<x>l+)(o)?"; "g")]`, `[match("L"; "gi")]`, `[match(["l", "g"])]`,
		`test("o")`, `test("O"; "i")`, `[test("^$")]`, `[capture("(?<a>[a-z])(?<b>[0-9])?")]`, `[scan("[a-z]")]`, `[scan("(l)(o)")]`,
		`[splits("")]`, `[splits(",")]`, `[splits("l+"; "g")]`, `split(", *"; null)`, `[splits("$")]`, `[splits("\\b")]`,
		`sub("l"; "L")`, `gsub("l"; "L")`, `gsub(""; "-")`, `gsub("(?<c>[a-z])"; .c + .c)`, `[gsub("l"; "1", "2")]`, `[sub("(?<x>.)"; "\(.x)!", "?")]`,
		`gsub("^"; ">")`, `gsub("$"; "<")`, `gsub("\\s"; ""; "g")`, `[gsub("a*"; "-")]`, `gsub("L"; "_"; "i")`,
		`indices("l")`, `indices("")`, `index("l")`, `rindex("l")`, `indices("😀")`, `index("zz")`, `rindex("zz")`,
		`[explode[]] | indices(108)`, `[explode[]] | indices([108, 111])`, `[explode[]] | index(108)`, `[explode[]] | rindex(108)`, `[explode[]] | indices([])`,
		`try gsub("l"; 1) catch "error"`, `try match("(") catch "error"`, `try match("a"; "q") catch "error"`,
	}
	agreeWithGojq(t, inputs, exprs)
}

// agreeWithGojq runs every expression on every input with ctxql's jq and
// with gojq's own, and requires the same results, and an error exactly
// when gojq has one, carrying gojq's message.
func agreeWithGojq(t *testing.T, inputs []any, exprs []string) {
	t.Helper()
	for _, in := range inputs {
		for _, expr := range exprs {
			want, werr := plainGojq(expr, in)
			q, err := acp.CompileJQ(expr)
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			got, gerr := q.Run(context.Background(), in, acp.JQLimits{})
			if (werr != nil) != (gerr != nil) || (werr != nil && !strings.Contains(gerr.Error(), werr.Error())) {
				t.Errorf("%#v | %s: error %v, gojq's %v", in, expr, gerr, werr)
				continue
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("%#v | %s:\n got %s\nwant %s", in, expr, gb, wb)
			}
		}
	}
}

// TestJQSortingAgreesWithGojq checks the bounded sorting built-ins against
// gojq's own: order across types, stability, keys, groups, duplicates, and
// the errors of input that is not an array.
func TestJQSortingAgreesWithGojq(t *testing.T) {
	inputs := []any{
		[]any{}, []any{3.0, 1.0, 2.0}, []any{"b", nil, 1.0, true, false, []any{1.0}, map[string]any{"a": 1.0}, "a", 1.0, nil},
		[]any{map[string]any{"k": 2.0, "i": 0.0}, map[string]any{"k": 1.0, "i": 1.0}, map[string]any{"k": 2.0, "i": 2.0}, map[string]any{"i": 3.0}},
		[]any{5.0, 3.0, 5.0, 1.0, 3.0, 3.0, 9.0, 0.0, -1.0, 2.5, 7.0, 7.0, 8.0, 6.0, 4.0, 3.5, 1.0},
		1.0, "s", nil, map[string]any{"a": 2.0, "b": 1.0},
	}
	exprs := []string{`sort`, `unique`, `sort_by(.k)`, `sort_by(.k, .i)`, `group_by(.k)`, `unique_by(.k)`, `sort_by(-.)`, `group_by(. % 2)`,
		`unique_by(length)`, `[.[] | tostring] | sort`, `try sort catch "e"`, `try sort_by(.) catch "e"`}
	agreeWithGojq(t, inputs, exprs)
}

// TestJQMultiplicationAgreesWithGojq checks that the rewrite guarding
// string repetition keeps gojq's multiplication: products of numbers, big
// integers, objects, strings and numbers in both orders, the order of the
// products of generators, *=, errors and their order.
func TestJQMultiplicationAgreesWithGojq(t *testing.T) {
	inputs := []any{map[string]any{"a": 3, "b": 2, "s": "ab", "o": map[string]any{"x": map[string]any{"y": 1}}}, []any{1, 2.5, "z"}, nil}
	exprs := []string{
		`[(1,2) * (10,20)]`, `3 * 4`, `2.5 * 2`, `9007199254740993 * 3`, `4611686018427387904 * 4`, `-1 * 5`,
		`{"a":{"b":1}} * {"a":{"c":2}}`, `"ab" * 3`, `3 * "ab"`, `"ab" * 0`, `"ab" * -1`, `"ab" * 0.5`, `"ab" * 1.7`,
		`try (null * 2) catch .`, `try ([1] * 2) catch .`, `try ("a" * "b") catch .`, `try (error("l") * error("r")) catch .`,
		`2 * 3 * 4`, `[(1,2) * 3 * (4,5)]`, `-(2 * 3)`, `2 * 3 + 1`, `1 + 2 * 3`, `"x" * 3 | length`, `[.[]? | . * 2?]`,
		`reduce range(5) as $i (1; . * 2)`, `def f: . * 2; [range(3) | f]`, `[.[]? as $x | $x * 2?]`, `try (.a *= 2) catch .`,
		`try ((.a, .b) *= (2, 3)) catch .`, `try (.[] *= 2) catch .`, `try (.s *= 2) catch .`, `try (.o *= {"x": {"z": 2}}) catch .`,
		`[limit(3; repeat(. ) | 2 * 3)]`, `[range(3)] | map(. * .)`, `[paths] | length`, `try (.a * .s) catch .`,
	}
	agreeWithGojq(t, inputs, exprs)
}

// TestJQRepeatBudget checks that a string repetition larger than the
// memory budget fails before it allocates: gojq would allocate up to 2 GiB
// in one step, out of the memory watchdog's reach.
func TestJQRepeatBudget(t *testing.T) {
	for _, expr := range []string{`"x" * 2000000000 | length`, `2000000000 * "x" | length`, `.s *= 1000000000`, `[range(20) | "y" * 100000000] | length`, `"ab" * 1e300`} {
		q, err := acp.CompileJQ(expr)
		if err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err = q.Run(context.Background(), map[string]any{"s": "ab"}, acp.JQLimits{MaxMemoryBytes: 64 << 20})
		runtime.ReadMemStats(&m1)
		if err == nil || !errors.Is(err, acp.ErrJQLimit) || !strings.Contains(err.Error(), "--max-memory") {
			t.Errorf("%s: error %v, want the memory budget naming --max-memory", expr, err)
		}
		if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 32<<20 {
			t.Errorf("%s: allocated %d bytes before failing", expr, grew)
		}
	}
	for _, expr := range []string{`1 as $__ctxql_r | $__ctxql_r * 2`, `$__ctxql_l`, `. as [$__ctxql_x] | 1`} {
		if _, err := acp.CompileJQ(expr); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("%s: error %v, want the reserved names refused", expr, err)
		}
	}
	// Within the budget a repetition is gojq's.
	q, err := acp.CompileJQ(`"ab" * 1000 | length`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Run(context.Background(), nil, acp.JQLimits{MaxMemoryBytes: 64 << 20})
	if err != nil || len(got) != 1 || fmt.Sprint(got[0]) != "2000" {
		t.Errorf("got %v, %v", got, err)
	}
}

// plainGojq runs expr with gojq's own built-ins.
func plainGojq(expr string, in any) ([]any, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	var out []any
	iter := q.Run(in)
	for {
		v, ok := iter.Next()
		if !ok {
			return out, nil
		}
		if err, ok := v.(error); ok {
			return out, err
		}
		out = append(out, v)
	}
}

// TestJQBoundedBuiltinsStop checks that the built-ins that gojq runs in one
// long step are linear or stop at the deadline: each query finishes or
// fails within two seconds of its 1 s deadline.
func TestJQBoundedBuiltinsStop(t *testing.T) {
	for _, expr := range []string{
		`("a"*100000)|[splits("")]|length`,
		`("a"*200000)|gsub("";"b")|length`,
		`("a"*200000)|[match("";"g")]|length`,
		`("a"*100000) as $s | $s | indices($s[0:50000]) | length`,
		`[range(200000)] as $a | $a | indices($a[0:100000]) | length`,
	} {
		q, err := acp.CompileJQ(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		start := time.Now()
		_, err = q.Run(context.Background(), nil, acp.JQLimits{Timeout: time.Second})
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %s under a 1s deadline (err %v)", expr, d, err)
		}
		if err != nil && !errors.Is(err, budget.ErrLimit) {
			t.Errorf("%s: %v, want a result or a limit error", expr, err)
		}
	}
}

// TestJQAbandonedRunStops runs, on an input of 3 million numbers, the
// built-ins that gojq would run in one step for seconds (sort, unique,
// group_by, sort_by), each under a 100 ms deadline, and checks that the
// abandoned evaluation's goroutine ends soon after the deadline.
func TestJQAbandonedRunStops(t *testing.T) {
	in := make([]any, 3_000_000)
	for i := range in {
		in[i] = float64((i * 7919) % 1_000_003)
	}
	for _, expr := range []string{`sort | length`, `unique | length`, `group_by(. % 7) | length`, `sort_by(-.) | length`} {
		q, err := acp.CompileJQ(expr)
		if err != nil {
			t.Fatal(err)
		}
		base := runtime.NumGoroutine()
		_, err = q.Run(context.Background(), in, acp.JQLimits{Timeout: 100 * time.Millisecond, MaxMemoryBytes: -1})
		if !errors.Is(err, budget.ErrLimit) {
			t.Errorf("%s: %v, want a time limit", expr, err)
		}
		returned := time.Now()
		for runtime.NumGoroutine() > base && time.Since(returned) < 10*time.Second {
			time.Sleep(5 * time.Millisecond)
		}
		// gojq's own sort runs on for 6 s and more here; the bound leaves
		// room for a loaded machine.
		if d := time.Since(returned); d > 3*time.Second {
			t.Errorf("%s: the abandoned evaluation ran on for %s after the deadline", expr, d)
		}
	}
}
