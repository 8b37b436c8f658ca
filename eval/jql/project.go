package jql

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	syn "github.com/ctxql/ctxql/syntax/jql"
)

// pnode is a node of the projection tree built from the select list.
type pnode struct {
	all  bool // the whole subtree is selected (minus exclusions below)
	excl bool // the subtree is excluded
	kids []*pkid
}

type pkid struct {
	name string
	node *pnode
}

func (n *pnode) kid(name string) *pnode {
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
		}
		n = k
	}
	return n
}

// inherit pushes "all" down to the nodes created for exclusions.
func (n *pnode) inherit(all bool) {
	if all {
		n.all = true
	}
	for _, k := range n.kids {
		k.node.inherit(n.all)
	}
}

func (n *pnode) hasExcl() bool {
	for _, k := range n.kids {
		if k.node.excl || k.node.hasExcl() {
			return true
		}
	}
	return false
}

// buildProjection turns the select list into a projection tree. No select
// means the domain's default projection; a select of exclusions only means
// "*" minus them. The id field is always included unless excluded.
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
		case it.Exclude:
			root.add(it.Path.Names()).excl = true
		default:
			root.add(it.Path.Names()).all = true
		}
	}
	if root.kid("id") == nil {
		root.add([]string{"id"}).all = true
	}
	root.inherit(false)
	return root
}

// project appends the projection of v under n to dst.
func (pl *plan) project(dst []byte, v *fastjson.Value) []byte {
	dst, _ = projectValue(dst, v, pl.proj)
	// Append computed fields into the root object.
	if len(dst) > 0 && dst[len(dst)-1] == '}' {
		body := dst[:len(dst)-1]
		first := len(body) > 0 && body[len(body)-1] == '{'
		for _, name := range pl.computed {
			k := pl.proj.kid(name)
			if k != nil && k.excl {
				continue
			}
			if k == nil && !pl.proj.all {
				continue
			}
			val, ok := computed(name, v)
			if !ok {
				continue
			}
			if !first {
				body = append(body, ',')
			}
			first = false
			body = appendJSONString(body, name)
			body = append(body, ':')
			body = append(body, val...)
		}
		dst = append(body, '}')
	}
	return dst
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

// projectValue appends v projected through n; ok is false when nothing of
// v is selected (a scalar under a partial selection).
func projectValue(dst []byte, v *fastjson.Value, n *pnode) ([]byte, bool) {
	if n.all && !n.hasExcl() {
		return v.MarshalTo(dst), true
	}
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		dst = append(dst, '{')
		first := true
		o.Visit(func(key []byte, ch *fastjson.Value) {
			k := n.kid(string(key))
			if k != nil && k.excl {
				return
			}
			if k == nil {
				if !n.all {
					return
				}
				k = &pnode{all: true}
			}
			mark := len(dst)
			if !first {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, string(key))
			dst = append(dst, ':')
			var ok bool
			dst, ok = projectValue(dst, ch, k)
			if !ok {
				dst = dst[:mark]
				return
			}
			first = false
		})
		return append(dst, '}'), true
	case fastjson.TypeArray:
		a, _ := v.Array()
		dst = append(dst, '[')
		first := true
		for _, e := range a {
			mark := len(dst)
			if !first {
				dst = append(dst, ',')
			}
			var ok bool
			dst, ok = projectValue(dst, e, n)
			if !ok {
				dst = dst[:mark]
				continue
			}
			first = false
		}
		return append(dst, ']'), true
	}
	if n.all {
		return v.MarshalTo(dst), true
	}
	return dst, false
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
		c, err1 := time.Parse(time.RFC3339Nano, str(v, "createTime"))
		u, err2 := time.Parse(time.RFC3339Nano, str(v, "updateTime"))
		if err1 != nil || err2 != nil {
			return nil, false
		}
		return fmt.Appendf(nil, "%d", u.Sub(c).Milliseconds()), true
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
