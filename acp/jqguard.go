package acp

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/itchyny/gojq"
)

// gojq builds the result of many operations in one step: a concatenation,
// a repetition, an encoding, a split or a join allocates its whole result
// at once, out of reach of the memory watchdog, which can only notice the
// heap growth once it has happened. A query of a few bytes can so double a
// string until one step allocates gigabytes, or encode a value that shares
// its parts (each level of [., .] doubles the text, not the memory) into
// more bytes than the machine has. The sandbox checks every such operation
// before it runs: its result's size is bounded from its operands, and the
// operation is refused when that bound does not fit in what is left of the
// run's memory budget (the budget less what the heap has grown since the
// run started). The checks are:
//
//   - binary + and * (and +=, *=, string interpolation, which are written
//     with them), rewritten as guardRepeats describes;
//   - the built-ins that build a large value in one step, shadowed by the
//     prelude's definitions in guardedBuiltins, which check, then call gojq's
//     own;
//   - assignments (=, |=, setpath), whose path may name an array index
//     far past the array's end, which gojq fills with nulls in one step;
//   - the encoding of each result and of an error's value, in Run.
//
// Whatever is built step by step (an array collected from a generator, a
// reduction) is left to the watchdog, which stops it within its sampling
// interval.

// guardFloor is the smallest allocation the checks weigh against the
// heap: smaller ones are left to the watchdog, so that the common small
// operations do not read the heap statistics.
const guardFloor = 1 << 20

// allow refuses an operation that would allocate n bytes when the run's
// memory budget has no room for them.
func (b *bounded) allow(what string, n float64) error {
	if b.maxRepeat <= 0 || n < guardFloor {
		return nil
	}
	limit := float64(b.maxRepeat)
	used := math.Max(float64(budget.HeapBytes()-b.base), 0)
	if n+used > limit {
		return fmt.Errorf("%s would allocate %.0f bytes with %.0f bytes of the memory budget in use: %w", what, n, used, budget.MemoryLimit(b.maxRepeat))
	}
	return nil
}

// headroom is what is left of the memory budget (+Inf without one).
func (b *bounded) headroom() float64 {
	if b.maxRepeat <= 0 {
		return math.Inf(1)
	}
	return float64(b.maxRepeat) - math.Max(float64(budget.HeapBytes()-b.base), 0)
}

// addcheck is _ctxql_addcheck(r) of input l: l itself, or an error when
// l + r would allocate more than the budget has room for: a string of
// their lengths, an array of their elements, an object of their entries.
func (b *bounded) addcheck(l any, args []any) any {
	r := args[0]
	var n float64
	switch l := l.(type) {
	case string:
		if r, ok := r.(string); ok {
			n = float64(len(l) + len(r))
		}
	case []any:
		if r, ok := r.([]any); ok {
			n = wordBytes * float64(len(l)+len(r))
		}
	case map[string]any:
		if r, ok := r.(map[string]any); ok {
			n = entryBytes * float64(len(l)+len(r))
		}
	}
	if err := b.allow("addition", n); err != nil {
		return err
	}
	return l
}

// Bytes an element of an array, an entry of an object and a part of a
// split take, bounded from above.
const (
	wordBytes  = 16
	entryBytes = 64
	partBytes  = 48
)

// tickEvery is how many collected elements pass between two looks at the
// heap.
const tickEvery = 4096

// tick is _ctxql_tick, which every element of an array collected with
// [f] passes through: its input itself, or, once the run's heap has grown
// past two thirds of the budget, an error. An array grows by a quarter of
// its size at a time, the old elements still held while the new ones are
// copied: below two thirds of the budget, the growth of an array, which the
// heap holds, cannot take the process past one and a half times it.
func (b *bounded) tick(v any, _ []any) any {
	b.ticks++
	if b.maxRepeat <= 0 || b.ticks%tickEvery != 0 {
		return v
	}
	if used := budget.HeapBytes() - b.base; used > b.maxRepeat/3*2 {
		return fmt.Errorf("collecting an array with %d bytes of the memory budget in use, past two thirds of it: %w", used, budget.MemoryLimit(b.maxRepeat))
	}
	return v
}

// guardedBuiltins are the built-ins the prelude shadows, with their arity:
// each checks its input (and argument) with _ctxql_cost, then calls gojq's
// own, aliased first as _ctxql_b_NAME. The format strings (@text, @json,
// @html, @uri, @csv, @tsv, @sh, @base64, @base32) reach them too: gojq
// compiles a format as a call of tostring, tojson, _tohtml, _touri, _tocsv,
// _totsv, _tosh, _tobase64 or format.
var guardedBuiltins = []struct {
	name  string
	arity int
}{
	{"tostring", 0}, {"tojson", 0}, {"_tohtml", 0}, {"_touri", 0}, {"_tocsv", 0}, {"_totsv", 0}, {"_tosh", 0},
	{"_tobase64", 0}, {"format", 1}, {"ascii_downcase", 0}, {"ascii_upcase", 0}, {"explode", 0}, {"implode", 0},
	{"split", 1}, {"join", 1}, {"flatten", 0}, {"flatten", 1}, {"add", 0}, {"fromjson", 0}, {"setpath", 2},
}

// guardPrelude is the part of the prelude that shadows guardedBuiltins,
// and add/1 and map/1, which collect arrays.
func guardPrelude() string {
	var sb strings.Builder
	for _, g := range guardedBuiltins {
		params, args := "", ""
		switch g.arity {
		case 1:
			params, args = "($a)", "($a)"
		case 2:
			params, args = "($a; $b)", "($a; $b)"
		}
		arg := "null"
		if g.arity > 0 {
			arg = "$a"
		}
		fmt.Fprintf(&sb, "def _ctxql_b_%s%s: %s%s;\n", g.name, params, g.name, args)
		fmt.Fprintf(&sb, "def %s%s: _ctxql_cost(%q; %s) | _ctxql_b_%s%s;\n", g.name, params, g.name, arg, g.name, args)
	}
	// Their definitions would call gojq's add and collect without a check.
	sb.WriteString("def add(f): [f] | add;\ndef map(f): [.[] | f];\n")
	return sb.String()
}

// cost is _ctxql_cost(name; arg): its input itself, or an error when the
// built-in name applied to it (with arg) would allocate more than the
// budget has room for.
func (b *bounded) cost(v any, args []any) any {
	name, _ := args[0].(string)
	arg := args[1]
	room := b.headroom()
	stop := func() bool { return b.ctx.Err() != nil }
	var n float64
	switch name {
	case "tostring":
		if _, ok := v.(string); !ok {
			n = 2 * jsonSize(v, room/2, stop)
		}
	case "tojson":
		n = 2 * jsonSize(v, room/2, stop)
	case "_tohtml", "_touri", "_tocsv", "_totsv", "_tosh", "_tobase64", "format":
		f := strings.TrimPrefix(name, "_to")
		if name == "format" {
			f, _ = arg.(string)
		}
		n = 2 * formatSize(f, v, room/2, stop)
	case "ascii_downcase", "ascii_upcase":
		if s, ok := v.(string); ok {
			n = 2 * float64(len(s))
		}
	case "explode":
		if s, ok := v.(string); ok {
			n = 24 * float64(len(s))
		}
	case "implode":
		if xs, ok := v.([]any); ok {
			n = 2 * utf8.UTFMax * float64(len(xs))
		}
	case "split":
		s, ok1 := v.(string)
		sep, ok2 := arg.(string)
		if ok1 && ok2 {
			parts := utf8.RuneCountInString(s)
			if sep != "" {
				parts = strings.Count(s, sep) + 1
			}
			n = partBytes * float64(parts)
		}
	case "join":
		if xs, ok := v.([]any); ok {
			sep, _ := arg.(string)
			n = 2 * float64(len(sep)*len(xs))
			for _, x := range xs {
				n += 2 * scalarSize(x)
			}
		}
	case "flatten":
		n = 2 * wordBytes * leaves(v, room/(2*wordBytes), stop)
	case "add":
		n = addSize(v)
	case "fromjson":
		if s, ok := v.(string); ok {
			n = float64(len(s))
			for _, c := range []string{",", "[", "{", ":"} {
				n += entryBytes * float64(strings.Count(s, c))
			}
		}
	case "setpath":
		p, _ := arg.([]any)
		n = pathGrowth(v, p)
	}
	if err := b.stopped(); err != nil {
		return err
	}
	if err := b.allow(strings.TrimPrefix(name, "_"), n); err != nil {
		return err
	}
	return v
}

// scalarSize bounds the text of a value join and the @csv, @tsv and @sh
// formats write: strings as they are, numbers and booleans as JSON, null as
// nothing (arrays and objects, which they refuse, as nothing too).
func scalarSize(x any) float64 {
	switch x := x.(type) {
	case string:
		return float64(len(x))
	case nil, []any, map[string]any:
		return 0 // nothing, or refused by the built-in
	}
	return jsonSize(x, math.Inf(1), nil)
}

// addSize bounds the result of add over an array: its strings' lengths, its
// arrays' elements or its objects' entries.
func addSize(v any) float64 {
	xs, ok := v.([]any)
	if !ok {
		if m, ok := v.(map[string]any); ok {
			xs = make([]any, 0, len(m))
			for _, x := range m {
				xs = append(xs, x)
			}
		}
	}
	var n float64
	for _, x := range xs {
		switch x := x.(type) {
		case string:
			n += 2 * float64(len(x))
		case []any:
			n += 2 * wordBytes * float64(len(x))
		case map[string]any:
			n += entryBytes * float64(len(x))
		}
	}
	return n
}

// formatSize bounds the text a format writes for v: the text of v (v
// itself for a string, else its JSON; for @csv, @tsv and @sh of an array,
// its elements') times the most a format expands a byte.
func formatSize(format string, v any, limit float64, stop func() bool) float64 {
	factor := map[string]float64{"html": 6, "uri": 3, "csv": 2, "tsv": 2, "sh": 4, "base64": 4.0 / 3, "base32": 8.0 / 5}[format]
	if factor == 0 {
		factor = 1
	}
	var text float64
	switch v := v.(type) {
	case string:
		text = float64(len(v))
	case []any:
		if format == "csv" || format == "tsv" || format == "sh" {
			for _, x := range v {
				text += scalarSize(x) + 3
			}
			break
		}
		text = jsonSize(v, limit/factor, stop)
	default:
		text = jsonSize(v, limit/factor, stop)
	}
	return factor*text + 8
}

// jsonSize bounds the length of v's JSON encoding, counting no further
// than limit: a value whose parts are shared is counted as written, each
// part as often as it appears, so the count stops early rather than walk
// what it would encode. It looks at stop (when not nil) as it goes, and
// returns +Inf once stop says so.
func jsonSize(v any, limit float64, stop func() bool) float64 {
	var n float64
	stack := [][]any{{v}}
	for steps := 1; len(stack) > 0 && n <= limit; steps++ {
		if steps%walkCheckEvery == 0 && stop != nil && stop() {
			return math.Inf(1)
		}
		top := stack[len(stack)-1]
		if len(top) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		x := top[0]
		stack[len(stack)-1] = top[1:]
		switch x := x.(type) {
		case nil:
			n += 4
		case bool:
			n += 5
		case int:
			n += intSize(x)
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1e17 {
				n += intSize(int(x))
			} else {
				n += 25
			}
		case *big.Int:
			n += float64(x.BitLen())/3 + 2
		case string:
			n += stringSize(x)
		case []any:
			n += 2 + float64(len(x))
			stack = append(stack, x)
		case map[string]any:
			vs := make([]any, 0, len(x))
			n += 2
			for k, e := range x {
				n += stringSize(k) + 2
				vs = append(vs, e)
			}
			stack = append(stack, vs)
		default:
			n += 25
		}
	}
	return n
}

// walkCheckEvery is how many values a size count takes between two looks
// at whether the run has stopped.
const walkCheckEvery = 1 << 16

// intSize is the length of the decimal text of i.
func intSize(i int) float64 {
	n := 1.0
	if i < 0 {
		n++
	}
	for i >= 10 || i <= -10 {
		i /= 10
		n++
	}
	return n
}

// stringSize is the length of s encoded as a JSON string.
func stringSize(s string) float64 {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"', c == '\\':
			n++
		case c < 0x20:
			n += 5
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && w == 1 {
				n += 2 // written as U+FFFD
			}
			i += w - 1
		}
	}
	return float64(n)
}

// leaves counts the non-array values flatten would collect from v, no
// further than limit, looking at stop as it goes (+Inf once it says so).
func leaves(v any, limit float64, stop func() bool) float64 {
	xs, ok := v.([]any)
	if !ok {
		return 0
	}
	var n float64
	stack := [][]any{xs}
	for steps := 1; len(stack) > 0 && n <= limit; steps++ {
		if steps%walkCheckEvery == 0 && stop() {
			return math.Inf(1)
		}
		top := stack[len(stack)-1]
		if len(top) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		stack[len(stack)-1] = top[1:]
		if ys, ok := top[0].([]any); ok {
			stack = append(stack, ys)
		} else {
			n++
		}
	}
	return n
}

// pathGrowth bounds what setpath(p; _) allocates on v for the arrays it
// extends: an index past an array's end (or into null, which becomes an
// array) makes an array of index+1 elements.
func pathGrowth(v any, p []any) float64 {
	var n float64
	for _, k := range p {
		i, isIndex := indexOf(k)
		switch x := v.(type) {
		case []any:
			if isIndex && i >= float64(len(x)) {
				n += wordBytes * (i + 1)
				v = nil
				continue
			}
			if isIndex && i >= 0 {
				v = x[int(i)]
				continue
			}
			v = nil
		case map[string]any:
			key, _ := k.(string)
			v = x[key]
		case nil:
			if isIndex {
				n += wordBytes * (i + 1)
			}
		default:
			v = nil
		}
	}
	return n
}

// indexOf returns k as an array index, when it is a number.
func indexOf(k any) (float64, bool) {
	f, ok := gojq.ToFloat64(k)
	if !ok || math.IsNaN(f) {
		return 0, false
	}
	return math.Floor(f), true
}

// checkValueError refuses to format the value of an error (error(v),
// halt_error) whose JSON would pass max bytes: gojq writes the whole value
// into the error's message.
func checkValueError(err error, max int) error {
	var ve gojq.ValueError
	if !errors.As(err, &ve) {
		return err
	}
	if _, ok := ve.Value().(string); ok {
		return err
	}
	if n := jsonSize(ve.Value(), float64(max), nil); n > float64(max) {
		return fmt.Errorf("error with a value of more than %d bytes: %w", max, budget.OutputLimit("error value", max))
	}
	return err
}
