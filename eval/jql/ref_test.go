package jql_test

// A deliberately simple reference evaluator for JQL, written from the
// specification and docs/spec-notes.md alone, for differential testing. It
// shares no code with the package under test: it reads documents with
// encoding/json into ordered trees, evaluates a query given as a structure
// (not text), and is slow and obvious on purpose.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rnode is a JSON value that keeps object keys in document order.
type rnode struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	str   string
	num   json.Number
	b     bool
	keys  []string
	vals  []*rnode
	elems []*rnode
}

func (n *rnode) get(key string) *rnode {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

func rdecode(b []byte) (*rnode, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	n, err := rvalue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return n, nil
}

func rvalue(d *json.Decoder) (*rnode, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		if t == '{' {
			n := &rnode{kind: 'o'}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := rvalue(d)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				n.vals = append(n.vals, v)
			}
			_, err := d.Token()
			return n, err
		}
		n := &rnode{kind: 'a'}
		for d.More() {
			v, err := rvalue(d)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		_, err := d.Token()
		return n, err
	case string:
		return &rnode{kind: 's', str: t}, nil
	case json.Number:
		return &rnode{kind: 'n', num: t}, nil
	case bool:
		return &rnode{kind: 'b', b: t}, nil
	}
	return &rnode{kind: 'z'}, nil
}

// encode writes n canonically: keys in order, strings re-encoded, numbers
// as written.
func (n *rnode) encode(b *strings.Builder) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			n.vals[i].encode(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.encode(b)
		}
		b.WriteByte(']')
	case 's':
		b.WriteString(strconv.Quote(n.str))
	case 'n':
		b.WriteString(n.num.String())
	case 'b':
		b.WriteString(strconv.FormatBool(n.b))
	default:
		b.WriteString("null")
	}
}

func (n *rnode) String() string {
	var b strings.Builder
	n.encode(&b)
	return b.String()
}

// ---- times (RFC 3339 §5.6, as docs/spec-notes.md states them) ----

type instant struct {
	sec  int64
	nsec int64
}

func (a instant) cmp(b instant) int {
	switch {
	case a.sec < b.sec:
		return -1
	case a.sec > b.sec:
		return 1
	case a.nsec < b.nsec:
		return -1
	case a.nsec > b.nsec:
		return 1
	}
	return 0
}

func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// daysFromCivil counts days from 1970-01-01 to y-m-d (proleptic Gregorian).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func rtime(s string) (instant, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return instant{}, false
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	h, ok4 := digits(s[11:13])
	mi, ok5 := digits(s[14:16])
	se, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 {
		return instant{}, false
	}
	mdays := []int64{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mo-1]
	if mo == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		mdays = 29
	}
	if d > mdays {
		return instant{}, false
	}
	rest := s[19:]
	var ns int64
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		frac := rest[1:i]
		if frac == "" {
			return instant{}, false
		}
		frac = (frac + "000000000")[:9]
		ns, _ = digits(frac)
		rest = rest[i:]
	}
	var off int64
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, a := digits(rest[1:3])
		om, b := digits(rest[4:6])
		if !a || !b || oh > 23 || om > 59 {
			return instant{}, false
		}
		off = oh*3600 + om*60
		if rest[0] == '-' {
			off = -off
		}
	default:
		return instant{}, false
	}
	return instant{sec: daysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + se - off, nsec: ns}, true
}

// ---- queries ----

// rlit is a literal: kind 's', 'n' (text in str), 'b', 'z'.
type rlit struct {
	kind byte
	str  string
	b    bool
}

type rop struct {
	op  string
	lit rlit   // eq, neq, gt, lt, gte, lte, contains
	in  []rlit // in
	yes bool   // exists
}

type rwhere struct {
	path      string
	shorthand bool // path: literal (one eq op)
	ops       []rop
}

type rquery struct {
	from       string
	hasSelect  bool
	sel        []string // select items as written
	where      []rwhere
	order      string // "" absent
	limit      int    // 0 absent
	startAfter string
}

// rschema lists the declared paths of each domain; "[]" marks arrays. A
// select or where path is known when every prefix is declared and "[]"
// markers only follow array fields.
var rschema = map[string][]string{
	"activities": {"id", "name", "type", "createTime", "originator", "sessionId", "message",
		"plan", "plan.id", "plan.steps[]", "plan.steps.id", "plan.steps.title", "plan.steps.description", "plan.steps.index", "plan.createTime",
		"planId", "title", "description", "reason",
		"artifacts[]", "artifacts.type", "artifacts.command", "artifacts.stdout", "artifacts.stderr", "artifacts.output", "artifacts.exitCode",
		"artifacts.format", "artifacts.data", "artifacts.changeSet", "artifacts.changeSet.source", "artifacts.changeSet.gitPatch",
		"artifacts.changeSet.gitPatch.unidiffPatch", "artifacts.changeSet.gitPatch.baseCommitId", "artifacts.changeSet.gitPatch.suggestedCommitMessage",
		"artifactCount", "summary"},
	"sessions": {"id", "name", "state", "title", "prompt", "url", "createTime", "updateTime", "requirePlanApproval", "automationMode",
		"sourceContext", "sourceContext.source", "sourceContext.githubRepoContext", "sourceContext.githubRepoContext.startingBranch",
		"outputs[]", "outputs.type", "outputs.pullRequest", "outputs.pullRequest.url", "outputs.pullRequest.title", "outputs.pullRequest.description",
		"durationMs"},
}

var rcomputed = map[string][]string{"activities": {"artifactCount", "summary"}, "sessions": {"durationMs"}}

var rdefault = map[string][]string{
	"sessions":   {"id", "state", "title", "createTime"},
	"activities": {"id", "type", "createTime", "originator", "artifactCount", "summary"},
}

// rsplit splits a path into names, reporting whether the schema knows it.
func rsplit(dom, path string) ([]string, bool) {
	declared := map[string]bool{}
	arrays := map[string]bool{}
	for _, p := range rschema[dom] {
		if strings.HasSuffix(p, "[]") {
			p = strings.TrimSuffix(p, "[]")
			arrays[p] = true
		}
		declared[p] = true
	}
	var names []string
	ok := true
	for _, seg := range strings.Split(path, ".") {
		arr := strings.HasSuffix(seg, "[]")
		name := strings.TrimSuffix(seg, "[]")
		names = append(names, name)
		full := strings.Join(names, ".")
		if name == "" || !declared[full] || (arr && !arrays[full]) {
			ok = false
		}
	}
	return names, ok
}

// ---- evaluation ----

// rvalues lists the values at a path, crossing arrays (also one at the end).
func rvalues(v *rnode, path []string) []*rnode {
	if v.kind == 'a' {
		var out []*rnode
		for _, e := range v.elems {
			out = append(out, rvalues(e, path)...)
		}
		return out
	}
	if len(path) == 0 {
		return []*rnode{v}
	}
	if c := v.get(path[0]); c != nil {
		return rvalues(c, path[1:])
	}
	return nil
}

// rexists reports whether the path's last field is present somewhere.
func rexists(v *rnode, path []string) bool {
	if len(path) == 0 {
		return true
	}
	if v.kind == 'a' {
		for _, e := range v.elems {
			if rexists(e, path) {
				return true
			}
		}
		return false
	}
	if c := v.get(path[0]); c != nil {
		return rexists(c, path[1:])
	}
	return false
}

func rnum(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func req(v *rnode, l rlit) bool {
	switch l.kind {
	case 's':
		if v.kind != 's' {
			return false
		}
		if v.str == l.str {
			return true
		}
		a, ok1 := rtime(v.str)
		b, ok2 := rtime(l.str)
		return ok1 && ok2 && a.cmp(b) == 0
	case 'n':
		return v.kind == 'n' && rnum(v.num.String()) == rnum(l.str)
	case 'b':
		return v.kind == 'b' && v.b == l.b
	}
	return v.kind == 'z'
}

// rcmp orders a value against a literal of its kind.
func rcmp(v *rnode, l rlit) (int, bool) {
	if l.kind == 'n' && v.kind == 'n' {
		a, b := rnum(v.num.String()), rnum(l.str)
		switch {
		case a < b:
			return -1, true
		case a > b:
			return 1, true
		}
		return 0, true
	}
	if l.kind == 's' && v.kind == 's' {
		a, ok1 := rtime(v.str)
		b, ok2 := rtime(l.str)
		if ok1 && ok2 {
			return a.cmp(b), true
		}
		return strings.Compare(v.str, l.str), true
	}
	return 0, false
}

func rtest(v *rnode, o rop) bool {
	switch o.op {
	case "eq":
		return req(v, o.lit)
	case "neq":
		return !req(v, o.lit)
	case "in":
		for _, l := range o.in {
			if req(v, l) {
				return true
			}
		}
		return false
	case "contains":
		return v.kind == 's' && strings.Contains(strings.ToLower(v.str), strings.ToLower(o.lit.str))
	}
	c, ok := rcmp(v, o.lit)
	if !ok {
		return false
	}
	switch o.op {
	case "gt":
		return c > 0
	case "lt":
		return c < 0
	case "gte":
		return c >= 0
	}
	return c <= 0
}

// rmatch reports whether doc satisfies the first n operators of a where
// entry: exists operators on the path, the others all on one value.
func rmatch(doc *rnode, dom string, w rwhere, n int) bool {
	path, _ := rsplit(dom, w.path)
	var vals []rop
	for _, o := range w.ops[:n] {
		if o.op == "exists" {
			if rexists(doc, path) != o.yes {
				return false
			}
		} else {
			vals = append(vals, o)
		}
	}
	if len(vals) == 0 {
		return true
	}
	for _, v := range rvalues(doc, path) {
		all := true
		for _, o := range vals {
			all = all && rtest(v, o)
		}
		if all {
			return true
		}
	}
	return false
}

// rkey is a document's place in the order.
type rkey struct {
	rank int
	t    instant
	s    string
	id   string
}

func rkeyOf(doc *rnode) rkey {
	var k rkey
	if ct := doc.get("createTime"); ct != nil && ct.kind == 's' {
		k.s = ct.str
		if t, ok := rtime(ct.str); ok {
			k.rank, k.t = 1, t
		} else {
			k.rank = 2
		}
	}
	if id := doc.get("id"); id != nil {
		if id.kind == 's' {
			k.id = id.str
		} else {
			k.id = id.String()
		}
	}
	return k
}

// rbefore: createTime in the order's direction, then id ascending.
func rbefore(a, b rkey, order string) bool {
	c := 0
	switch {
	case a.rank != b.rank:
		c = a.rank - b.rank
	case a.rank == 1:
		c = a.t.cmp(b.t)
	case a.rank == 2:
		c = strings.Compare(a.s, b.s)
	}
	if order != "asc" {
		c = -c
	}
	if c != 0 {
		return c < 0
	}
	return a.id < b.id
}

// rprojection is the select list resolved against the schema.
type rprojection struct {
	star       bool
	incl, excl [][]string
	dom        string
}

func prefix(p, q []string) bool { // p is a prefix of q (or equal)
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

func rbuild(q rquery) rprojection {
	pr := rprojection{dom: q.from}
	if len(q.sel) == 0 {
		for _, p := range rdefault[q.from] {
			pr.incl = append(pr.incl, strings.Split(p, "."))
		}
	}
	incl := 0
	for _, s := range q.sel {
		if !strings.HasPrefix(s, "-") {
			incl++
		}
	}
	if len(q.sel) > 0 && incl == 0 {
		pr.star = true
	}
	for _, s := range q.sel {
		if s == "*" {
			pr.star = true
			continue
		}
		ex := strings.HasPrefix(s, "-")
		names, ok := rsplit(q.from, strings.TrimPrefix(s, "-"))
		if !ok {
			continue
		}
		if ex {
			pr.excl = append(pr.excl, names)
		} else {
			pr.incl = append(pr.incl, names)
		}
	}
	idExcluded := false
	for _, e := range pr.excl {
		if len(e) == 1 && e[0] == "id" {
			idExcluded = true
		}
	}
	if !idExcluded {
		pr.incl = append(pr.incl, []string{"id"})
	}
	return pr
}

func (pr rprojection) excluded(p []string) bool {
	for _, e := range pr.excl {
		if prefix(e, p) {
			return true
		}
	}
	return false
}

func (pr rprojection) whole(p []string) bool {
	if pr.excluded(p) {
		return false
	}
	if pr.star {
		return true
	}
	for _, i := range pr.incl {
		if prefix(i, p) {
			return true
		}
	}
	return false
}

// partial: an inclusion strictly below p not cut off by an exclusion.
func (pr rprojection) partial(p []string) bool {
	for _, i := range pr.incl {
		if len(i) <= len(p) || !prefix(p, i) {
			continue
		}
		cut := false
		for _, e := range pr.excl {
			if len(e) > len(p) && prefix(e, i) {
				cut = true
			}
		}
		if !cut {
			return true
		}
	}
	return false
}

func with(p []string, k string) []string {
	return append(append([]string(nil), p...), k)
}

// rprojObject projects the members of an object at path p.
func (pr rprojection) rprojObject(v *rnode, p []string, root bool) *rnode {
	out := &rnode{kind: 'o'}
	for i, k := range v.keys {
		if root && isComputed(pr.dom, k) {
			continue
		}
		cp := with(p, k)
		c := v.vals[i]
		var r *rnode
		switch {
		case pr.excluded(cp):
		case pr.whole(cp):
			r = pr.rprojWhole(c, cp)
		case pr.partial(cp):
			switch c.kind {
			case 'o':
				if r = pr.rprojObject(c, cp, false); len(r.keys) == 0 {
					r = nil
				}
			case 'a':
				r = pr.rprojArray(c, cp)
			}
		}
		if r != nil {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, r)
		}
	}
	return out
}

// rprojWhole projects a wholly selected value (minus exclusions below).
func (pr rprojection) rprojWhole(v *rnode, p []string) *rnode {
	switch v.kind {
	case 'o':
		return pr.rprojObject(v, p, false)
	case 'a':
		return pr.rprojArray(v, p)
	}
	return v
}

// rprojArray keeps object and array elements, and scalars when whole.
func (pr rprojection) rprojArray(v *rnode, p []string) *rnode {
	out := &rnode{kind: 'a'}
	for _, e := range v.elems {
		switch e.kind {
		case 'o':
			out.elems = append(out.elems, pr.rprojObject(e, p, false))
		case 'a':
			out.elems = append(out.elems, pr.rprojArray(e, p))
		default:
			if pr.whole(p) {
				out.elems = append(out.elems, e)
			}
		}
	}
	return out
}

func isComputed(dom, k string) bool {
	for _, c := range rcomputed[dom] {
		if c == k {
			return true
		}
	}
	return false
}

func rstr(v *rnode, keys ...string) string {
	for _, k := range keys {
		v = v.get(k)
	}
	if v == nil || v.kind != 's' {
		return ""
	}
	return v.str
}

func rcut(s string) string {
	if utf8.RuneCountInString(s) <= 200 {
		return s
	}
	return string([]rune(s)[:200]) + "…"
}

func rsummary(v *rnode) (string, bool) {
	switch t := rstr(v, "type"); t {
	case "":
		return "", false
	case "agentMessaged", "userMessaged":
		return rcut(rstr(v, "message")), true
	case "progressUpdated":
		ti, de := rstr(v, "title"), rstr(v, "description")
		switch {
		case ti != "" && de != "":
			return rcut(ti + ": " + de), true
		case ti != "" || de != "":
			return rcut(ti + de), true
		}
		return "Progress updated", true
	case "planGenerated":
		n := 0
		if s := v.get("plan").get("steps"); s != nil && s.kind == 'a' {
			n = len(s.elems)
		}
		if n == 1 {
			return "Plan generated with 1 step", true
		}
		return fmt.Sprintf("Plan generated with %d steps", n), true
	case "planApproved":
		return "Plan approved", true
	case "sessionCompleted":
		return "Session completed", true
	case "sessionFailed":
		if r := rstr(v, "reason"); r != "" {
			return rcut("Session failed: " + r), true
		}
		return "Session failed", true
	default:
		return t, true
	}
}

func rcomputedValue(name string, v *rnode) (*rnode, bool) {
	switch name {
	case "artifactCount":
		n := 0
		if a := v.get("artifacts"); a != nil && a.kind == 'a' {
			n = len(a.elems)
		}
		return &rnode{kind: 'n', num: json.Number(strconv.Itoa(n))}, true
	case "summary":
		s, ok := rsummary(v)
		return &rnode{kind: 's', str: s}, ok
	case "durationMs":
		a, ok1 := rtime(rstr(v, "createTime"))
		b, ok2 := rtime(rstr(v, "updateTime"))
		if !ok1 || !ok2 {
			return nil, false
		}
		// Exact: nanoseconds in a big integer, divided truncating toward zero.
		ns := new(big.Int).Mul(big.NewInt(b.sec-a.sec), big.NewInt(1_000_000_000))
		ns.Add(ns, big.NewInt(b.nsec-a.nsec))
		ms := new(big.Int).Quo(ns, big.NewInt(1_000_000)).Int64()
		return &rnode{kind: 'n', num: json.Number(strconv.FormatInt(ms, 10))}, true
	}
	return nil, false
}

func (pr rprojection) project(doc *rnode) *rnode {
	out := pr.rprojObject(doc, nil, true)
	for _, c := range rcomputed[pr.dom] {
		if pr.excluded([]string{c}) || !pr.whole([]string{c}) {
			continue
		}
		if v, ok := rcomputedValue(c, doc); ok {
			out.keys = append(out.keys, c)
			out.vals = append(out.vals, v)
		}
	}
	return out
}

// rresult is the reference's answer.
type rresult struct {
	docs        []string // canonical JSON
	badCursor   bool
	warnings    int
	total       int
	steps       []int // documents left after each operator, in order
	afterCursor int
}

func reval(q rquery, data [][]byte) (*rresult, error) {
	res := &rresult{}
	var docs []*rnode
	for _, raw := range data {
		d, err := rdecode(raw)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	res.total = len(docs)
	for _, s := range q.sel {
		if s == "*" {
			continue
		}
		if _, ok := rsplit(q.from, strings.TrimPrefix(s, "-")); !ok {
			res.warnings++
		}
	}
	limit := q.limit
	if limit == 0 {
		limit = 100
	}
	if limit > 1000 {
		limit = 1000
		res.warnings++
	}
	var cursor *rkey
	if q.startAfter != "" {
		for _, d := range docs {
			if id := d.get("id"); d.kind == 'o' && id != nil && id.kind == 's' && id.str == q.startAfter {
				k := rkeyOf(d)
				cursor = &k
				break
			}
		}
		if cursor == nil {
			res.badCursor = true
			return res, nil
		}
	}
	nops := 0
	for _, w := range q.where {
		nops += len(w.ops)
	}
	res.steps = make([]int, nops)
	var kept []*rnode
	for _, d := range docs {
		if d.kind != 'o' {
			continue
		}
		ok := true
		step := 0
		for _, w := range q.where {
			for n := 1; n <= len(w.ops) && ok; n++ {
				if ok = rmatch(d, q.from, w, n); ok {
					res.steps[step]++
				}
				step++
			}
		}
		if !ok {
			continue
		}
		if cursor != nil && !rbefore(*cursor, rkeyOf(d), q.order) {
			continue
		}
		res.afterCursor++
		kept = append(kept, d)
	}
	sort.SliceStable(kept, func(i, j int) bool { return rbefore(rkeyOf(kept[i]), rkeyOf(kept[j]), q.order) })
	if len(kept) > limit {
		kept = kept[:limit]
	}
	pr := rbuild(q)
	for _, d := range kept {
		res.docs = append(res.docs, pr.project(d).String())
	}
	return res, nil
}
