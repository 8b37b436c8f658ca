// Package jql evaluates JQL queries over sessions and activities.
//
// Documents are raw JSON; each is pre-filtered on its bytes (a where
// equality on a string literal must find the literal's JSON encoding in the
// document), parsed with github.com/valyala/fastjson into a reused arena,
// tested, and kept in a bounded heap of the best limit documents, so neither
// a limit nor a cursor sorts the whole collection and only the survivors are
// copied and projected.
package jql

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// QueryError reports an invalid query: every error diagnostic found.
type QueryError struct {
	// Diagnostics are the errors, sorted by position.
	Diagnostics []syntax.Diagnostic
}

// Error implements error.
func (e *QueryError) Error() string {
	var b strings.Builder
	for i, d := range e.Diagnostics {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Message)
	}
	return b.String()
}

// Result is the outcome of a query.
type Result struct {
	// Docs are the projected result documents, compact JSON, in order.
	Docs [][]byte
	// Warnings are non-fatal diagnostics (unknown select paths, clamped limit).
	Warnings []syntax.Diagnostic
}

// WriteJSON writes the result as a JSON array, one document per line.
func (r *Result) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, d := range r.Docs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		b.Write(d)
	}
	if len(r.Docs) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := w.Write(b.Bytes())
	return err
}

// Check returns every diagnostic of a parsed query against the schema, parse
// diagnostics included.
func Check(q *syn.Query, parseDiags []syntax.Diagnostic, s *syn.Schema) []syntax.Diagnostic {
	ds := append(slices.Clone(parseDiags), s.Check(q)...)
	syntax.SortDiagnostics(ds)
	return ds
}

// DefaultMaxBytes is the default budget for the encoded size of a result.
const DefaultMaxBytes = 64 << 20

// Options bound an evaluation. The zero value applies the defaults.
type Options struct {
	// MaxBytes caps the total size of the projected result documents, in
	// bytes; 0 means DefaultMaxBytes, a negative value means no cap. The
	// number of documents is capped by the query's limit (at most MaxLimit).
	MaxBytes int64
	// MaxBytesFlag names the setting that raises MaxBytes, quoted in the
	// BudgetError ("--max-bytes" when empty).
	MaxBytesFlag string
	// Workers is the number of goroutines an evaluation splits its
	// documents among (those of a loaded Table, or the blocks of a JSON
	// Lines file or buffer); 0 means GOMAXPROCS. The result does not
	// depend on it.
	Workers int

	blockSize int // the size of the blocks of JSON Lines (0: blockSize)
}

func (o Options) budgetError(budget int64) error {
	flag := o.MaxBytesFlag
	if flag == "" {
		flag = "--max-bytes"
	}
	return &BudgetError{Limit: "the result", Max: budget, Unit: "bytes", Flag: flag}
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes == 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// BudgetError reports an evaluation stopped by a resource limit.
type BudgetError struct {
	// Limit names what was limited ("the result").
	Limit string
	// Max is the limit's value.
	Max int64
	// Unit is the unit of Max ("bytes").
	Unit string
	// Flag is the setting that raises the limit.
	Flag string
}

// Error implements error.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s exceeds the limit of %d %s; raise it with %s", e.Limit, e.Max, e.Unit, e.Flag)
}

// Eval parses src (any accepted text form) and evaluates it over data.
func Eval(ctx context.Context, src string, data Source) (*Result, error) {
	q, ds := syn.ParseQuery(src)
	return EvalQuery(ctx, q, ds, data)
}

// EvalQuery evaluates a parsed query with the default Options. parseDiags
// are the parser's diagnostics; any error among them or from the schema
// check makes the result a *QueryError. Data problems are *DataError;
// cancellation and an expired deadline return the context's error.
func EvalQuery(ctx context.Context, q *syn.Query, parseDiags []syntax.Diagnostic, data Source) (*Result, error) {
	return EvalQueryOptions(ctx, q, parseDiags, data, Options{})
}

// prepare checks a query and compiles it; warnings are the non-fatal
// diagnostics.
func prepare(q *syn.Query, parseDiags []syntax.Diagnostic) (*plan, []syntax.Diagnostic, error) {
	s := syn.NewSchema()
	ds := Check(q, parseDiags, s)
	var errs, warns []syntax.Diagnostic
	for _, d := range ds {
		if d.Severity == syntax.SeverityError {
			errs = append(errs, d)
		} else {
			warns = append(warns, d)
		}
	}
	if len(errs) > 0 {
		return nil, nil, &QueryError{Diagnostics: errs}
	}
	return newPlan(q, s.Domain(q.Domain())), warns, nil
}

// findCursor resolves startAfter to its document's sort key.
func (pl *plan) findCursor(ctx context.Context, data Source, p *fastjson.Parser) error {
	q := pl.q
	if q.StartAfter == "" {
		return nil
	}
	needle := jsonString(q.StartAfter)
	found := false
	seen := 0
	err := data.Scan(ctx, pl.dom.Name, func(raw []byte) error {
		if seen++; seen%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if found || (needle != nil && !mayContain(raw, needle)) {
			return nil
		}
		v, err := p.ParseBytes(raw)
		if err != nil {
			return dataErr("%w", err)
		}
		if sb := v.GetStringBytes("id"); v.Get("id") != nil && string(sb) == q.StartAfter {
			pl.cursor = keyOf(v)
			found = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return cursorError(q, pl.dom.Name)
	}
	pl.hasCursor = true
	return nil
}

// cursorError is the error of a startAfter that names no document.
func cursorError(q *syn.Query, domain string) error {
	return &QueryError{Diagnostics: []syntax.Diagnostic{{
		Span: q.StartAfterValue.Sp, Severity: syntax.SeverityError, Code: syn.CodeInvalidCursor,
		Message: fmt.Sprintf("%s: startAfter %q names no document in %s", syn.CodeInvalidCursor, q.StartAfter, domain),
	}}}
}

// EvalQueryOptions is EvalQuery bounded by opts; a result over budget is a
// *BudgetError.
func EvalQueryOptions(ctx context.Context, q *syn.Query, parseDiags []syntax.Diagnostic, data Source, opts Options) (*Result, error) {
	pl, warns, err := prepare(q, parseDiags)
	if err != nil {
		return nil, err
	}
	res := &Result{Warnings: warns}
	if t, ok := data.(*Table); ok && t.columnar(pl) {
		return t.evalTable(ctx, pl, res, opts)
	}
	var p fastjson.Parser
	if err := pl.findCursor(ctx, data, &p); err != nil {
		return nil, err
	}
	var items []entry
	br, done, lines, err := linesReader(data, pl.dom.Name)
	if err != nil {
		return nil, err
	}
	t, isTable := data.(*Table)
	switch {
	case lines:
		items, err = pl.scanLinesParallel(ctx, br, opts.workers(), cmp.Or(opts.blockSize, blockSize))
		done()
		if err != nil {
			return nil, err
		}
	case isTable:
		if items, err = t.scanDocs(ctx, pl, opts.workers()); err != nil {
			return nil, err
		}
	default:
		h := &topk{less: pl.entryBefore}
		pos := int64(0)
		err = data.Scan(ctx, pl.dom.Name, func(raw []byte) error {
			// The deadline holds whatever the Source does about it.
			if pos++; pos%256 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			return pl.offer(&p, h, raw, pos)
		})
		if err != nil {
			return nil, err
		}
		items = h.items
	}
	slices.SortFunc(items, func(a, b entry) int {
		if pl.entryBefore(a, b) {
			return -1
		}
		if pl.entryBefore(b, a) {
			return 1
		}
		return 0
	})
	if len(items) > q.Limit {
		items = items[:q.Limit]
	}
	docs, err := projectDocs(ctx, &p, pl, opts, len(items), func(i int) []byte { return items[i].raw })
	if err != nil {
		return nil, err
	}
	res.Docs = append(res.Docs, docs...)
	return res, nil
}

// projectDocs parses and projects the n raw documents of a result, in
// order, within the output budget of opts. With more than one worker and
// enough documents, the workers project runs of them as they are free,
// each with its own parser; the budget is checked in order either way.
func projectDocs(ctx context.Context, p *fastjson.Parser, pl *plan, opts Options, n int, raw func(i int) []byte) ([][]byte, error) {
	docs := make([][]byte, n)
	one := func(p *fastjson.Parser, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			v, err := p.ParseBytes(raw(i))
			if err != nil {
				return dataErr("%w", err)
			}
			docs[i] = pl.project(nil, v)
		}
		return nil
	}
	const perWorker = 16 // fewer documents than this a worker are projected by one
	if w := min(opts.workers(), n/perWorker); w > 1 {
		// Runs of chunk documents, taken in turn by the caller and the
		// other workers (share): a worker that starts late finds less
		// or nothing to do, and none is waited for.
		const chunk = 8
		errs := make([]error, (n+chunk-1)/chunk)
		parsers := make([]*fastjson.Parser, w)
		parsers[0] = p
		share(w, len(errs), func(k, i int) {
			if parsers[k] == nil {
				parsers[k] = new(fastjson.Parser)
			}
			errs[i] = one(parsers[k], i*chunk, min(n, (i+1)*chunk))
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	} else if err := one(p, 0, n); err != nil {
		return nil, err
	}
	budget, size := opts.maxBytes(), int64(0)
	for _, d := range docs {
		size += int64(len(d)) + 4
		if budget > 0 && size > budget {
			return nil, opts.budgetError(budget)
		}
	}
	return docs, nil
}

// mayContain is the raw-bytes pre-filter: a document can only hold the
// string needle (JSON-encoded, quotes included, printable ASCII without
// quotes or backslashes) if its bytes contain it, or if it uses an escape
// that could spell one of the needle's characters differently: only \uXXXX,
// and \/ for '/'. Other escapes (\n, \t, ...) cannot.
func mayContain(raw, needle []byte) bool {
	if bytes.Contains(raw, needle) || bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	return bytes.IndexByte(needle, '/') >= 0 && bytes.Contains(raw, []byte(`\/`))
}

func mayContainAny(raw []byte, needles [][]byte) bool {
	for _, n := range needles {
		if mayContain(raw, n) {
			return true
		}
	}
	return false
}

// jsonString returns the JSON encoding of s when it is the only way s can
// appear unescaped (printable ASCII without quotes or backslashes), else nil.
func jsonString(s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return nil
		}
	}
	return []byte(`"` + s + `"`)
}

// sortKey is a document's position in the order: (createTime, id).
type sortKey struct {
	rank int   // 0 missing createTime, 1 RFC 3339 time, 2 other string
	sec  int64 // Unix seconds of an RFC 3339 time (any year 0000-9999)
	nsec int32
	s    string
	id   string
	// idStr is whether the id is a JSON string (else id is its JSON text).
	idStr bool
}

func keyOf(v *fastjson.Value) sortKey {
	var k sortKey
	if ct := v.Get("createTime"); ct != nil && ct.Type() == fastjson.TypeString {
		b, _ := ct.StringBytes()
		k.s = unsafeString(b)
		if t, ok := parseTime(k.s); ok {
			k.rank, k.sec, k.nsec = 1, t.Unix(), int32(t.Nanosecond())
		} else {
			k.rank = 2
		}
	}
	if id := v.Get("id"); id != nil {
		if id.Type() == fastjson.TypeString {
			b, _ := id.StringBytes()
			k.id, k.idStr = unsafeString(b), true
		} else {
			k.id = id.String()
		}
	}
	return k
}

// unsafeString copies b: a key's strings outlive the parser's buffer.
func unsafeString(b []byte) string { return string(b) }

func cmpTime(a, b sortKey) int {
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	switch a.rank {
	case 1:
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		return cmp.Compare(a.nsec, b.nsec)
	case 2:
		return strings.Compare(a.s, b.s)
	}
	return 0
}

// entry is a matching document kept for the result: its key, its bytes
// and its place in the input, which breaks ties of the order.
type entry struct {
	key sortKey
	raw []byte
	pos int64
}

// topk is a heap holding the best entries seen; its root is the worst kept.
type topk struct {
	items []entry
	less  func(a, b entry) bool
}

func (h *topk) push(e entry) { heap.Push(h, e) }
func (h *topk) fix0()        { heap.Fix(h, 0) }

func (h *topk) Len() int           { return len(h.items) }
func (h *topk) Less(i, j int) bool { return h.less(h.items[j], h.items[i]) }
func (h *topk) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topk) Push(x any)         { h.items = append(h.items, x.(entry)) }
func (h *topk) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// plan is a compiled query.
type plan struct {
	q         *syn.Query
	dom       *syn.Domain
	groups    []*group
	needles   [][][]byte
	proj      *pnode
	computed  []string
	cursor    sortKey
	hasCursor bool
}

// before reports whether a comes before b in the result order: createTime
// in the query's direction, then id ascending.
func (pl *plan) before(a, b sortKey) bool {
	c := cmpTime(a, b)
	if pl.q.Order != "asc" {
		c = -c
	}
	if c != 0 {
		return c < 0
	}
	return a.id < b.id
}

func newPlan(q *syn.Query, dom *syn.Domain) *plan {
	pl := &plan{q: q, dom: dom}
	for _, c := range q.Where {
		cc := compileCond(c)
		if n := len(pl.groups); n > 0 && pl.groups[n-1].key == c.KeySpan {
			pl.groups[n-1].conds = append(pl.groups[n-1].conds, cc)
		} else {
			pl.groups = append(pl.groups, &group{key: c.KeySpan, path: cc.path, conds: []*cond{cc}})
		}
		if n := cc.needles(); n != nil {
			pl.needles = append(pl.needles, n)
		}
	}
	for _, f := range dom.Root.Fields {
		if f.Computed {
			pl.computed = append(pl.computed, f.Name)
		}
	}
	pl.proj = buildProjection(q, dom)
	return pl
}

// group is the conditions of one where entry: one path and its operators.
// The operators other than exists must all hold for one and the same value
// at the path (one array element), not each for some value of its own.
type group struct {
	key   syntax.Span
	path  []string
	conds []*cond
}

// match reports whether v satisfies the group's first n conditions.
func (g *group) match(v *fastjson.Value, n int) bool {
	conds := g.conds[:n]
	values := false
	for _, c := range conds {
		if c.op == syn.OpExists {
			if present(v, g.path) != c.exists {
				return false
			}
		} else {
			values = true
		}
	}
	if !values {
		return true
	}
	return anyValue(v, g.path, func(x *fastjson.Value) bool {
		for _, c := range conds {
			if c.op != syn.OpExists && !c.test(x) {
				return false
			}
		}
		return true
	})
}

// literal is a compiled operand: a string operand that reads as an RFC 3339
// time also carries the instant.
type literal struct {
	v      *syn.Value
	t      time.Time
	isTime bool
}

func compileLiteral(v *syn.Value) literal {
	l := literal{v: v}
	if v.Kind == syn.KindString {
		l.t, l.isTime = parseTime(v.Str)
	}
	return l
}

// cond is a compiled where condition.
type cond struct {
	path   []string
	op     string
	lit    literal
	in     []literal
	needle string // lower-cased contains operand
	exists bool
}

func compileCond(c *syn.Condition) *cond {
	cc := &cond{path: c.Path.Names(), op: c.Op}
	switch c.Op {
	case syn.OpIn:
		for _, e := range c.Operand.Elems {
			cc.in = append(cc.in, compileLiteral(e))
		}
	case syn.OpContains:
		cc.needle = strings.ToLower(c.Operand.Str)
	case syn.OpExists:
		cc.exists = c.Operand.Bool
	default:
		cc.lit = compileLiteral(c.Operand)
	}
	return cc
}

// needles returns the JSON-encoded strings one of which a matching document
// must contain, or nil when the condition gives no such guarantee (a time
// may be spelled in many ways).
func (c *cond) needles() [][]byte {
	switch c.op {
	case syn.OpEq:
		if c.lit.v.Kind == syn.KindString && !c.lit.isTime {
			if n := jsonString(c.lit.v.Str); n != nil {
				return [][]byte{n}
			}
		}
	case syn.OpIn:
		var out [][]byte
		for _, e := range c.in {
			if e.v.Kind != syn.KindString || e.isTime {
				return nil
			}
			n := jsonString(e.v.Str)
			if n == nil {
				return nil
			}
			out = append(out, n)
		}
		if out == nil {
			return [][]byte{}
		}
		return out
	}
	return nil
}

// present reports whether the path reaches a value in some array element.
func present(v *fastjson.Value, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch v.Type() {
	case fastjson.TypeArray:
		a, _ := v.Array()
		for _, e := range a {
			if present(e, path) {
				return true
			}
		}
	case fastjson.TypeObject:
		if ch := v.Get(path[0]); ch != nil {
			return present(ch, path[1:])
		}
	}
	return false
}

// anyValue reports whether some value at the path, arrays crossed
// existentially (including an array at the end), satisfies test.
func anyValue(v *fastjson.Value, path []string, test func(*fastjson.Value) bool) bool {
	if v.Type() == fastjson.TypeArray {
		a, _ := v.Array()
		for _, e := range a {
			if anyValue(e, path, test) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 {
		return test(v)
	}
	if v.Type() != fastjson.TypeObject {
		return false
	}
	ch := v.Get(path[0])
	if ch == nil {
		return false
	}
	return anyValue(ch, path[1:], test)
}

func (c *cond) test(v *fastjson.Value) bool {
	switch c.op {
	case syn.OpEq:
		return equal(v, c.lit)
	case syn.OpNeq:
		return !equal(v, c.lit)
	case syn.OpIn:
		for _, e := range c.in {
			if equal(v, e) {
				return true
			}
		}
		return false
	case syn.OpContains:
		if v.Type() != fastjson.TypeString {
			return false
		}
		b, _ := v.StringBytes()
		return containsFold(b, c.needle)
	case syn.OpGt, syn.OpLt, syn.OpGte, syn.OpLte:
		r, ok := compare(v, c.lit)
		if !ok {
			return false
		}
		switch c.op {
		case syn.OpGt:
			return r > 0
		case syn.OpLt:
			return r < 0
		case syn.OpGte:
			return r >= 0
		}
		return r <= 0
	}
	return false
}

func containsFold(b []byte, lowerNeedle string) bool {
	if len(lowerNeedle) == 0 {
		return true
	}
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		return strings.Contains(strings.ToLower(string(b)), lowerNeedle)
	}
	n := len(lowerNeedle)
	for i := 0; i+n <= len(b); i++ {
		j := 0
		for ; j < n; j++ {
			c := b[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lowerNeedle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

// equal reports whether a document value equals a literal: numbers by
// value, strings byte for byte, except that two strings that both read as
// RFC 3339 times are equal when they name the same instant.
func equal(v *fastjson.Value, lit literal) bool {
	switch lit.v.Kind {
	case syn.KindString:
		if v.Type() != fastjson.TypeString {
			return false
		}
		b, _ := v.StringBytes()
		if string(b) == lit.v.Str {
			return true
		}
		if lit.isTime {
			if t, ok := parseTime(unsafeString(b)); ok {
				return t.Equal(lit.t)
			}
		}
		return false
	case syn.KindNumber:
		if v.Type() != fastjson.TypeNumber {
			return false
		}
		f, _ := v.Float64()
		return f == lit.v.Num
	case syn.KindBool:
		return (lit.v.Bool && v.Type() == fastjson.TypeTrue) || (!lit.v.Bool && v.Type() == fastjson.TypeFalse)
	case syn.KindNull:
		return v.Type() == fastjson.TypeNull
	}
	return false
}

// compare orders a document value against a literal of the same kind;
// strings that both read as RFC 3339 times compare as instants.
func compare(v *fastjson.Value, lit literal) (int, bool) {
	switch lit.v.Kind {
	case syn.KindNumber:
		if v.Type() != fastjson.TypeNumber {
			return 0, false
		}
		f, _ := v.Float64()
		return cmp.Compare(f, lit.v.Num), true
	case syn.KindString:
		if v.Type() != fastjson.TypeString {
			return 0, false
		}
		b, _ := v.StringBytes()
		s := unsafeString(b)
		if lit.isTime {
			if t, ok := parseTime(s); ok {
				return t.Compare(lit.t), true
			}
		}
		return strings.Compare(s, lit.v.Str), true
	}
	return 0, false
}
