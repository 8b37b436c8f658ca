package jql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/ctxql/ctxql/internal/jsonenc"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// pnode is a node of the projection tree built from the select list.
type pnode struct {
	all  bool // the whole subtree is selected (minus exclusions below)
	excl bool // the subtree is excluded
	sel  bool // something below (or the node itself) is included
	pure bool // all, and nothing below is excluded: copy the value as is
	kids []*pkid
	idx  map[string]*pnode // kids by name, once there are many
}

type pkid struct {
	name string
	node *pnode
}

// kidIndexAt is the number of kids from which a node indexes them by name.
const kidIndexAt = 8

func (n *pnode) kid(name string) *pnode {
	if n.idx != nil {
		return n.idx[name]
	}
	for _, k := range n.kids {
		if k.name == name {
			return k.node
		}
	}
	return nil
}

func (n *pnode) add(names []string) *pnode {
	for _, nm := range names {
		k := n.kid(nm)
		if k == nil {
			k = &pnode{}
			n.kids = append(n.kids, &pkid{name: nm, node: k})
			if n.idx != nil {
				n.idx[nm] = k
			} else if len(n.kids) >= kidIndexAt {
				n.idx = make(map[string]*pnode, len(n.kids))
				for _, k := range n.kids {
					n.idx[k.name] = k.node
				}
			}
		}
		n = k
	}
	return n
}

// finish pushes "all" down to the nodes created for exclusions and computes
// sel and pure bottom-up.
func (n *pnode) finish(all bool) {
	if all {
		n.all = true
	}
	n.sel = n.all
	n.pure = n.all
	for _, k := range n.kids {
		k.node.finish(n.all)
		if k.node.sel && !k.node.excl {
			n.sel = true
		}
		if k.node.excl || !k.node.pure {
			n.pure = false
		}
	}
}

// buildProjection turns the select list into a projection tree. No select
// means the domain's default projection; a select of exclusions only means
// "*" minus them. Paths the schema does not know select and exclude nothing.
// The id field is always included unless excluded.
func buildProjection(q *syn.Query, dom *syn.Domain) *pnode {
	root := &pnode{}
	incl := 0
	for _, it := range q.Select {
		if !it.Exclude {
			incl++
		}
	}
	switch {
	case len(q.Select) == 0:
		for _, p := range dom.Default {
			root.add(strings.Split(p, ".")).all = true
		}
	case incl == 0:
		root.all = true
	}
	for _, it := range q.Select {
		switch {
		case it.Star:
			root.all = true
		case dom.Resolve(it.Path).Bad >= 0:
			// Unknown to the schema: selects nothing (a warning says so).
		case it.Exclude:
			root.add(it.Path.Names()).excl = true
		default:
			root.add(it.Path.Names()).all = true
		}
	}
	if id := root.kid("id"); id == nil {
		root.add([]string{"id"}).all = true
	} else if !id.excl {
		id.all = true
	}
	root.finish(false)
	return root
}

// project appends the projection of the root object v to dst: its stored
// fields (except those named like a computed field), then the computed
// fields that are selected.
func (pl *plan) project(dst []byte, v *fastjson.Value) []byte {
	o, _ := v.Object()
	dst = append(dst, '{')
	first := true
	o.Visit(func(key []byte, ch *fastjson.Value) {
		if pl.isComputed(string(key)) {
			return
		}
		dst, first = projectMember(dst, first, key, ch, pl.proj)
	})
	for _, name := range pl.computed {
		k := pl.proj.kid(name)
		if k != nil && k.excl || k == nil && !pl.proj.all || k != nil && !k.all {
			continue
		}
		val, ok := computed(name, v)
		if !ok {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, name)
		dst = append(dst, ':')
		dst = append(dst, val...)
	}
	return append(dst, '}')
}

func (pl *plan) isComputed(name string) bool {
	for _, c := range pl.computed {
		if c == name {
			return true
		}
	}
	return false
}

// appendJSONString appends s as a JSON string, as jsonenc writes it. A
// string of printable ASCII without quotes or backslashes, as keys
// usually are, is written as it is, without the encoder's reflection.
func appendJSONString(dst []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	b, _ := jsonenc.Marshal(s)
	return append(dst, b...)
}

// projectMember appends the member key: ch of an object projected under the
// object's node n, preceded by a comma unless first; it returns whether the
// object is still empty. A member is left out when it is excluded, not
// selected, a scalar under a partial selection, or an object whose partial
// projection is empty (no empty parents for paths the document lacks).
func projectMember(dst []byte, first bool, key []byte, ch *fastjson.Value, n *pnode) ([]byte, bool) {
	k := n.kid(string(key))
	switch {
	case k == nil && !n.all:
		return dst, first
	case k == nil:
		k = allNode
	case k.excl || !k.sel:
		return dst, first
	}
	mark := len(dst)
	if !first {
		dst = append(dst, ',')
	}
	dst = appendJSONString(dst, string(key))
	dst = append(dst, ':')
	if k.pure {
		return ch.MarshalTo(dst), false
	}
	switch ch.Type() {
	case fastjson.TypeObject:
		before := len(dst)
		dst = projectObject(dst, ch, k)
		if !k.all && len(dst) == before+2 {
			return dst[:mark], first
		}
	case fastjson.TypeArray:
		dst = projectArray(dst, ch, k)
	default:
		if !k.all {
			return dst[:mark], first
		}
		dst = ch.MarshalTo(dst)
	}
	return dst, false
}

var allNode = &pnode{all: true, sel: true, pure: true}

func projectObject(dst []byte, v *fastjson.Value, n *pnode) []byte {
	o, _ := v.Object()
	dst = append(dst, '{')
	first := true
	o.Visit(func(key []byte, ch *fastjson.Value) {
		dst, first = projectMember(dst, first, key, ch, n)
	})
	return append(dst, '}')
}

// projectArray appends an array projected element by element under n:
// object and array elements are kept (even when their projection is empty,
// so positions stay meaningful), scalars only when n selects them whole.
func projectArray(dst []byte, v *fastjson.Value, n *pnode) []byte {
	a, _ := v.Array()
	dst = append(dst, '[')
	first := true
	for _, e := range a {
		switch e.Type() {
		case fastjson.TypeObject, fastjson.TypeArray:
		default:
			if !n.all {
				continue
			}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		switch {
		case n.pure:
			dst = e.MarshalTo(dst)
		case e.Type() == fastjson.TypeObject:
			dst = projectObject(dst, e, n)
		case e.Type() == fastjson.TypeArray:
			dst = projectArray(dst, e, n)
		default:
			dst = e.MarshalTo(dst)
		}
	}
	return append(dst, ']')
}

// computed returns the JSON value of a computed field, or false when the
// document lacks what it needs.
func computed(name string, v *fastjson.Value) ([]byte, bool) {
	switch name {
	case "artifactCount":
		n := 0
		if a := v.Get("artifacts"); a != nil && a.Type() == fastjson.TypeArray {
			arr, _ := a.Array()
			n = len(arr)
		}
		return fmt.Appendf(nil, "%d", n), true
	case "summary":
		s, ok := Summary(v)
		if !ok {
			return nil, false
		}
		return appendJSONString(nil, s), true
	case "durationMs":
		c, ok1 := parseTime(str(v, "createTime"))
		u, ok2 := parseTime(str(v, "updateTime"))
		if !ok1 || !ok2 {
			return nil, false
		}
		return fmt.Appendf(nil, "%d", durationMs(c, u)), true
	}
	return nil, false
}

func str(v *fastjson.Value, keys ...string) string {
	x := v.Get(keys...)
	if x == nil || x.Type() != fastjson.TypeString {
		return ""
	}
	b, _ := x.StringBytes()
	return string(b)
}

// maxSummary is the number of runes of a message kept in a summary.
const maxSummary = 200

func truncate(s string) string {
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)
	return string(r[:maxSummary]) + "…"
}

// Summary computes an activity's summary field: the message for
// agentMessaged and userMessaged (up to 200 runes), "title: description"
// for progressUpdated, "Plan generated with N steps" for planGenerated,
// "Plan approved", "Session completed", "Session failed: reason", and the
// type itself for other types. It is absent when the type is missing.
func Summary(v *fastjson.Value) (string, bool) {
	typ := str(v, "type")
	switch typ {
	case "":
		return "", false
	case "agentMessaged", "userMessaged":
		return truncate(str(v, "message")), true
	case "progressUpdated":
		t, d := str(v, "title"), str(v, "description")
		switch {
		case t != "" && d != "":
			return truncate(t + ": " + d), true
		case t != "":
			return truncate(t), true
		case d != "":
			return truncate(d), true
		}
		return "Progress updated", true
	case "planGenerated":
		n := len(v.GetArray("plan", "steps"))
		if n == 1 {
			return "Plan generated with 1 step", true
		}
		return fmt.Sprintf("Plan generated with %d steps", n), true
	case "planApproved":
		return "Plan approved", true
	case "sessionCompleted":
		return "Session completed", true
	case "sessionFailed":
		if r := str(v, "reason"); r != "" {
			return truncate("Session failed: " + r), true
		}
		return "Session failed", true
	}
	return typ, true
}
