package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/ctxql/ctxql/internal/budget"
)

// JQLimits bound a jq query: its deadline, the number and total encoded size
// of its results, and how far the heap may grow while it runs. gojq has no
// memory bound of its own, so a watchdog samples the heap and abandons the
// run when it grows past MaxMemoryBytes.
type JQLimits struct {
	Timeout        time.Duration // 0 means DefaultJQTimeout
	MaxResults     int           // 0 means DefaultJQMaxResults
	MaxBytes       int           // 0 means DefaultJQMaxBytes
	MaxMemoryBytes int64         // 0 means budget.DefaultMaxMemory; < 0 no limit
}

// Default jq limits.
const (
	DefaultJQTimeout    = 5 * time.Second
	DefaultJQMaxResults = 10000
	DefaultJQMaxBytes   = budget.DefaultMaxOutputBytes
)

// ErrJQLimit is wrapped by errors reporting an exceeded result cap, output
// size, memory budget or timeout.
var ErrJQLimit = errors.New("jq limit exceeded")

// JQ is a compiled, sandboxed jq query.
type JQ struct {
	query *gojq.Query
	vars  []string
}

// jqPrelude replaces the jq built-ins whose gojq implementation runs for a
// long time in one step, out of reach of the deadline (the regular
// expression functions compute every match's offset from the start of the
// string, quadratic in the number of matches; indices compares every
// position; the sorting built-ins sort millions of elements in one step),
// by definitions over bounded functions that observe the deadline
// and cap the number of matches. Definitions in a query's scope take
// precedence over built-ins, so the prelude's shadow gojq's own.
const jqPrelude = `
def match($re): if $re | type == "array" then match($re[0]; $re[1]) else match($re; null) end;
def match($re; $flags): _ctxql_match($re; $flags; false)[];
def test($re): if $re | type == "array" then test($re[0]; $re[1]) else test($re; null) end;
def test($re; $flags): _ctxql_match($re; $flags; true);
def capture($re): if $re | type == "array" then capture($re[0]; $re[1]) else capture($re; null) end;
def capture($re; $flags): match($re; $flags) | .captures | _captures;
def scan($re): scan($re; null);
def scan($re; $flags): match($re; $flags + "g") | if .captures == [] then .string else [.captures[].string] end;
def splits($re; $flags): _ctxql_splits($re; $flags)[];
def splits($re): splits($re; null);
def split($re; $flags): [splits($re; $flags)];
def sub($re; str): sub($re; str; null);
def sub($re; str; $flags): [match($re; $flags)] as $ms | _ctxql_subst($ms; [$ms[] | .captures | _captures | [str]])[];
def gsub($re; str): sub($re; str; "g");
def gsub($re; str; $flags): sub($re; str; $flags + "g");
def indices($i): _ctxql_indices($i; 0);
def index($i): _ctxql_indices($i; 1);
def rindex($i): _ctxql_indices($i; 2);
def sort: _ctxql_sort("sort"; .; .);
def sort_by(f): _ctxql_sort("sort_by"; .; map([f]));
def group_by(f): _ctxql_sort("group_by"; .; map([f]));
def unique: _ctxql_sort("unique"; .; .);
def unique_by(f): _ctxql_sort("unique_by"; .; map([f]));
.`

// CompileJQ parses and compiles a jq expression in a sandbox: the
// environment is empty ($ENV and env yield {}), no module loader is
// installed (import and include fail), and no input iterator is wired (input
// and inputs fail). Variables named in vars are bound, in order, to the
// values passed to Run.
func CompileJQ(src string, vars ...string) (*JQ, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	if err := checkInternal(reflect.ValueOf(q)); err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	pre, err := gojq.Parse(guardPrelude() + jqPrelude)
	if err != nil {
		return nil, fmt.Errorf("jq prelude: %w", err)
	}
	// The user's own definitions come after the prelude's, so they win.
	q.FuncDefs = append(pre.FuncDefs, q.FuncDefs...)
	if err := guardRepeats(q); err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	j := &JQ{query: q, vars: vars}
	if _, err := j.compile(context.Background(), 1, 0); err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	return j, nil
}

// compile compiles the query with the bounded built-ins bound to ctx,
// capped at maxMatches matches per call and maxRepeat bytes per string
// repetition (0: no cap).
func (j *JQ) compile(ctx context.Context, maxMatches int, maxRepeat int64) (*gojq.Code, error) {
	b := &bounded{ctx: ctx, max: maxMatches, maxRepeat: maxRepeat, cache: map[[2]string]*regexp.Regexp{}}
	if maxRepeat > 0 {
		b.base = budget.HeapBytes()
	}
	return gojq.Compile(j.query,
		gojq.WithEnvironLoader(func() []string { return nil }),
		gojq.WithVariables(j.vars),
		gojq.WithFunction("_ctxql_match", 3, 3, b.match),
		gojq.WithFunction("_ctxql_indices", 2, 2, b.indices),
		gojq.WithFunction("_ctxql_splits", 2, 2, b.splits),
		gojq.WithFunction("_ctxql_subst", 2, 2, b.subst),
		gojq.WithFunction("_ctxql_mulcheck", 2, 2, b.mulcheck),
		gojq.WithFunction("_ctxql_addcheck", 1, 1, b.addcheck),
		gojq.WithFunction("_ctxql_cost", 2, 2, b.cost),
		gojq.WithFunction("_ctxql_tick", 0, 0, b.tick),
		gojq.WithFunction("_ctxql_sort", 3, 3, b.sort),
	)
}

// Run evaluates the query over input and returns its results, stopping at
// the first error, at the deadline, at a cap or when the heap grows past the
// memory budget. The evaluation runs in its own goroutine, so Run returns at
// the deadline even while a built-in is busy; the abandoned goroutine stops
// at its next step.
func (j *JQ) Run(ctx context.Context, input any, lim JQLimits, varValues ...any) ([]any, error) {
	if lim.Timeout <= 0 {
		lim.Timeout = DefaultJQTimeout
	}
	if lim.MaxResults <= 0 {
		lim.MaxResults = DefaultJQMaxResults
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultJQMaxBytes
	}
	if lim.MaxMemoryBytes == 0 {
		lim.MaxMemoryBytes = budget.DefaultMaxMemory
	}
	ctx, cancel := context.WithTimeoutCause(ctx, lim.Timeout, budget.TimeLimit(lim.Timeout))
	defer cancel()
	ctx, stop := budget.WatchMemory(ctx, lim.MaxMemoryBytes)
	defer stop()
	// A match object encodes to at least 48 bytes: more matches than that
	// could never be printed within the output budget.
	code, err := j.compile(ctx, lim.MaxBytes/48+1, max(lim.MaxMemoryBytes, 0))
	if err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	type item struct {
		v  any
		ok bool
	}
	next := make(chan item)
	go func() {
		iter := code.RunWithContext(ctx, input, varValues...)
		for {
			v, ok := iter.Next()
			select {
			case next <- item{v, ok}:
			case <-ctx.Done():
				return
			}
			if !ok {
				return
			}
		}
	}()
	limitErr := func() error {
		if le := budget.LimitCause(ctx); le != nil {
			return fmt.Errorf("jq: %w: %w", le, ErrJQLimit)
		}
		return fmt.Errorf("jq: %w", ctx.Err())
	}
	var out []any
	size := 0
	for {
		var it item
		select {
		case it = <-next:
		case <-ctx.Done():
			return out, limitErr()
		}
		if !it.ok {
			break
		}
		if err, ok := it.v.(error); ok {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				break
			}
			if ctx.Err() != nil {
				return out, limitErr()
			}
			err = checkValueError(err, lim.MaxBytes)
			var le *budget.LimitError
			if errors.As(err, &le) {
				return out, fmt.Errorf("jq: %w: %w", err, ErrJQLimit)
			}
			return out, fmt.Errorf("jq: %w", err)
		}
		if len(out) >= lim.MaxResults {
			return out, fmt.Errorf("jq: %w: %w", &budget.LimitError{What: "result count", Limit: fmt.Sprint(lim.MaxResults), Flag: budget.FlagMaxResults}, ErrJQLimit)
		}
		// A value whose parts are shared can encode to far more than it
		// holds: its size is bounded before it is encoded, or walked.
		if n := jsonSize(it.v, float64(lim.MaxBytes-size), nil); n > float64(lim.MaxBytes-size) {
			return out, fmt.Errorf("jq: %w: %w", budget.OutputLimit("results", lim.MaxBytes), ErrJQLimit)
		}
		if d := depth(it.v, maxResultDepth); d > maxResultDepth {
			return out, fmt.Errorf("jq: a result is nested more than %d levels deep", maxResultDepth)
		}
		b, err := json.Marshal(it.v)
		if err != nil {
			return out, fmt.Errorf("jq: encode result: %w", err)
		}
		size += len(b)
		if size > lim.MaxBytes {
			return out, fmt.Errorf("jq: %w: %w", budget.OutputLimit("results", lim.MaxBytes), ErrJQLimit)
		}
		out = append(out, it.v)
		if ctx.Err() != nil {
			return out, limitErr()
		}
	}
	if ctx.Err() != nil && budget.LimitCause(ctx) != nil {
		return out, limitErr()
	}
	return out, nil
}

// maxResultDepth bounds the nesting of a printed result: the encoders
// recurse, so a deeper value is refused before it is encoded.
const maxResultDepth = 10000

// depth returns the nesting depth of v, stopping once it exceeds max. It
// walks iteratively, so a deep value cannot exhaust the stack.
func depth(v any, max int) int {
	type frame struct {
		v any
		d int
	}
	stack := []frame{{v, 1}}
	deepest := 0
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.d > deepest {
			deepest = f.d
			if deepest > max {
				return deepest
			}
		}
		switch x := f.v.(type) {
		case []any:
			for _, e := range x {
				stack = append(stack, frame{e, f.d + 1})
			}
		case map[string]any:
			for _, e := range x {
				stack = append(stack, frame{e, f.d + 1})
			}
		}
	}
	return deepest
}

// bounded holds the replacements of gojq's long-running built-ins for one
// run: they observe ctx and stop at max matches.
type bounded struct {
	ctx       context.Context
	max       int
	maxRepeat int64 // the memory budget, which bounds what one step allocates (0: no cap)
	base      int64 // the heap's size when the run started
	ticks     int   // elements collected into arrays so far
	cache     map[[2]string]*regexp.Regexp
	probe     map[*regexp.Regexp]*regexp.Regexp
}

// checkEvery is how many steps a bounded built-in takes between looks at its
// context.
const checkEvery = 256

func (b *bounded) stopped() error {
	if b.ctx.Err() != nil {
		if le := budget.LimitCause(b.ctx); le != nil {
			return le
		}
		return b.ctx.Err()
	}
	return nil
}

func (b *bounded) tooMany(what string) error {
	return fmt.Errorf("%s: more than %d matches (raise with %s)", what, b.max, budget.FlagMaxOutputBytes)
}

// regexp compiles re with jq's flags, as gojq does: g (global), i (case
// insensitive), m (dot matches newline).
func (b *bounded) regexp(re, flags string) (*regexp.Regexp, error) {
	key := [2]string{re, flags}
	if r, ok := b.cache[key]; ok {
		return r, nil
	}
	if strings.ContainsFunc(flags, func(r rune) bool { return r != 'g' && r != 'i' && r != 'm' }) {
		return nil, fmt.Errorf("unsupported regular expression flag: %q", flags)
	}
	src := re
	if strings.ContainsRune(flags, 'i') {
		src = "(?i)" + src
	}
	if strings.ContainsRune(flags, 'm') {
		src = "(?s)" + src
	}
	r, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %s", src, err)
	}
	b.cache[key] = r
	if b.probe == nil {
		b.probe = map[*regexp.Regexp]*regexp.Regexp{}
	}
	if p, err := regexp.Compile(`\A(?s:.)(?:` + src + `)`); err == nil {
		b.probe[r] = p
	}
	return r, nil
}

// match is _match(re; flags; testing): a boolean for test, else the array
// of match objects {offset, length, string, captures}, offsets and lengths
// in code points. Offsets are counted incrementally, linear in the string.
func (b *bounded) match(v any, args []any) any {
	name := "match"
	if args[2] == true {
		name = "test"
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s cannot be applied to %s: not a string", name, typeName(v))
	}
	re, ok := args[0].(string)
	if !ok {
		return fmt.Errorf("%s: the regular expression is %s, not a string", name, typeName(args[0]))
	}
	flags := ""
	if args[1] != nil {
		if flags, ok = args[1].(string); !ok {
			return fmt.Errorf("%s: the flags are %s, not a string", name, typeName(args[1]))
		}
	}
	r, err := b.regexp(re, flags)
	if err != nil {
		return err
	}
	if args[2] == true {
		return r.MatchString(s)
	}
	n := 1
	if strings.ContainsRune(flags, 'g') {
		n = b.max + 1
	}
	xs := r.FindAllStringSubmatchIndex(s, n)
	if n > 1 {
		xs = b.withAbuttingEmpty(r, s, xs)
	}
	if len(xs) > b.max {
		return b.tooMany(name)
	}
	names := r.SubexpNames()
	res := make([]any, len(xs))
	cp := codepoints{s: s}
	for i, x := range xs {
		if i%checkEvery == 0 {
			if err := b.stopped(); err != nil {
				return err
			}
		}
		captures := make([]any, (len(x)-2)/2)
		for j := 1; j < len(x)/2; j++ {
			var nm any
			if names[j] != "" {
				nm = names[j]
			}
			if x[j*2] < 0 {
				captures[j-1] = map[string]any{"name": nm, "offset": -1, "length": 0, "string": nil}
				continue
			}
			// Capture offsets can go back before the match's end; count them
			// from the match's start.
			off := cp.at(x[0]) + utf8.RuneCountInString(s[x[0]:x[j*2]])
			captures[j-1] = map[string]any{"name": nm, "offset": off,
				"length": utf8.RuneCountInString(s[x[j*2]:x[j*2+1]]), "string": s[x[j*2]:x[j*2+1]]}
		}
		res[i] = map[string]any{"offset": cp.at(x[0]), "length": utf8.RuneCountInString(s[x[0]:x[1]]),
			"string": s[x[0]:x[1]], "captures": captures}
	}
	return res
}

// splits is splits($re; $flags) as an array: the parts of the string
// between the matches of $re (flags plus "g"), in linear time.
func (b *bounded) splits(v any, args []any) any {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("splits cannot be applied to %s: not a string", typeName(v))
	}
	re, ok := args[0].(string)
	if !ok {
		return fmt.Errorf("splits: the regular expression is %s, not a string", typeName(args[0]))
	}
	flags := "g"
	if args[1] != nil {
		f, ok := args[1].(string)
		if !ok {
			return fmt.Errorf("splits: the flags are %s, not a string", typeName(args[1]))
		}
		flags = f + "g"
	}
	r, err := b.regexp(re, flags)
	if err != nil {
		return err
	}
	xs := b.withAbuttingEmpty(r, s, r.FindAllStringIndex(s, b.max+1))
	if len(xs) > b.max {
		return b.tooMany("splits")
	}
	out := make([]any, 0, len(xs)+1)
	last := 0
	for i, x := range xs {
		if i%checkEvery == 0 {
			if err := b.stopped(); err != nil {
				return err
			}
		}
		out = append(out, s[last:x[0]])
		last = x[1]
	}
	return append(out, s[last:])
}

// subst assembles the results of sub: the input string with the i-th
// output of the replacement for each match (reps[k] holds the outputs for
// match k) put in place of the match, as jq's own definition does, in
// linear time. With no match, the input itself.
func (b *bounded) subst(v any, args []any) any {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("sub cannot be applied to %s: not a string", typeName(v))
	}
	ms, ok1 := args[0].([]any)
	reps, ok2 := args[1].([]any)
	if !ok1 || !ok2 || len(ms) != len(reps) {
		return errors.New("sub: internal error: matches and replacements differ")
	}
	var out []*strings.Builder
	var cp, bytePos int // walk of s: code point cp is at byte bytePos
	toByte := func(off int) int {
		for cp < off && bytePos < len(s) {
			_, w := utf8.DecodeRuneInString(s[bytePos:])
			bytePos += w
			cp++
		}
		return bytePos
	}
	next := 0
	for k, m := range ms {
		if k%checkEvery == 0 {
			if err := b.stopped(); err != nil {
				return err
			}
		}
		mo, _ := m.(map[string]any)
		off, ok1 := mo["offset"].(int)
		n, ok2 := mo["length"].(int)
		if !ok1 || !ok2 {
			return errors.New("sub: internal error: a match without offset and length")
		}
		start := toByte(off)
		end := toByte(off + n)
		if start < next {
			start = next
		}
		gap := s[next:start]
		outs, _ := reps[k].([]any)
		for i, o := range outs {
			r, ok := o.(string)
			if !ok {
				return fmt.Errorf("cannot add: string (%q) and %s", clipString(gap), typeName(o))
			}
			for len(out) <= i {
				out = append(out, &strings.Builder{})
			}
			out[i].WriteString(gap)
			out[i].WriteString(r)
		}
		next = end
	}
	if len(out) == 0 {
		return []any{s}
	}
	res := make([]any, len(out))
	for i, sb := range out {
		sb.WriteString(s[next:])
		res[i] = sb.String()
	}
	return res
}

func clipString(s string) string {
	if len(s) > 10 {
		return s[:10] + "..."
	}
	return s
}

// withAbuttingEmpty adds, as jq reports and Go's regexp does not, the empty
// match right after a non-empty one.
func (b *bounded) withAbuttingEmpty(r *regexp.Regexp, s string, xs [][]int) [][]int {
	p := b.probe[r]
	if len(xs) == 0 || p == nil {
		return xs
	}
	ys := make([][]int, 0, len(xs))
	for i, x := range xs {
		ys = append(ys, x)
		if len(ys) > b.max {
			return ys
		}
		if x[0] == x[1] || i+1 < len(xs) && xs[i+1][0] == x[1] {
			continue
		}
		_, w := utf8.DecodeLastRuneInString(s[:x[1]])
		y := p.FindStringSubmatchIndex(s[x[1]-w:])
		if y == nil || y[1] != w {
			continue
		}
		z := make([]int, len(y))
		z[0], z[1] = x[1], x[1]
		for k := 2; k < len(y); k++ {
			if y[k] < 0 {
				z[k] = -1
			} else {
				z[k] = y[k] + x[1] - w
			}
		}
		ys = append(ys, z)
	}
	return ys
}

// codepoints converts increasing byte offsets of s to code point offsets in
// linear total time.
type codepoints struct {
	s         string
	byte, cps int
}

func (c *codepoints) at(off int) int {
	if off < c.byte {
		c.byte, c.cps = 0, 0
	}
	c.cps += utf8.RuneCountInString(c.s[c.byte:off])
	c.byte = off
	return c.cps
}

// indices is indices/index/rindex (mode 0, 1, 2) of jq: the positions of x
// in a string (code points) or an array, observing the deadline.
func (b *bounded) indices(v any, args []any) any {
	x, mode := args[0], args[1]
	name := [...]string{"indices", "index", "rindex"}[toInt(mode)]
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		t, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s(%s) cannot be applied to a string", name, typeName(x))
		}
		return b.stringIndices(v, t, toInt(mode))
	case []any:
		xs, ok := x.([]any)
		if !ok {
			xs = []any{x}
		}
		return b.arrayIndices(v, xs, toInt(mode))
	}
	return fmt.Errorf("%s cannot be applied to %s", name, typeName(v))
}

func (b *bounded) stringIndices(s, t string, mode int) any {
	if t == "" {
		if mode == 0 {
			return []any{}
		}
		return nil
	}
	out := []any{}
	cp := codepoints{s: s}
	for from, k := 0, 0; from <= len(s); k++ {
		if k%checkEvery == 0 {
			if err := b.stopped(); err != nil {
				return err
			}
		}
		i := strings.Index(s[from:], t)
		if i < 0 {
			break
		}
		pos := cp.at(from + i)
		if mode == 1 {
			return pos
		}
		if mode == 2 {
			out = append(out[:0], pos)
		} else if len(out) >= b.max {
			return b.tooMany("indices")
		} else {
			out = append(out, pos)
		}
		_, w := utf8.DecodeRuneInString(s[from+i:])
		from += i + w
	}
	return finishIndices(out, mode)
}

func (b *bounded) arrayIndices(vs, xs []any, mode int) any {
	out := []any{}
	if len(xs) == 0 {
		return finishIndices(out, mode)
	}
	for i := 0; i+len(xs) <= len(vs); i++ {
		if i%checkEvery == 0 {
			if err := b.stopped(); err != nil {
				return err
			}
		}
		if gojq.Compare(vs[i:i+len(xs)], xs) != 0 {
			continue
		}
		if mode == 1 {
			return i
		}
		if mode == 2 {
			out = append(out[:0], i)
		} else if len(out) >= b.max {
			return b.tooMany("indices")
		} else {
			out = append(out, i)
		}
	}
	return finishIndices(out, mode)
}

func finishIndices(out []any, mode int) any {
	switch mode {
	case 0:
		return out
	case 2:
		if len(out) > 0 {
			return out[len(out)-1]
		}
	}
	return nil
}

func toInt(v any) int {
	if n, ok := v.(int); ok {
		return n
	}
	return 0
}

func typeName(v any) string {
	return gojq.TypeOf(v)
}
