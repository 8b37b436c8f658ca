package pact

import (
	"encoding/json"
	"strconv"
	"strings"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// numericAttrs are compared as numbers (v1 §5.1).
var numericAttrs = map[string]bool{"offset": true, "ttl": true, "priority": true, "cycle": true, "created_at_ns": true, "cad": true, "creation_index": true}

// stringAttrs are compared as strings (v1 §5.1).
var stringAttrs = map[string]bool{"nodeType": true, "id": true, "role": true, "kind": true, "created_at_iso": true, "key": true}

// attrValue returns a node's attribute; ok is false when it is missing.
func attrValue(n Node, key string) (any, bool) {
	switch key {
	case "id":
		id := n.ID()
		if id == "" {
			_, ok := n.Attr("id")
			return nil, ok
		}
		return id, true
	case "nodeType", "type":
		if key == "type" {
			if v, ok := n.Attr("type"); ok {
				return v, true
			}
		}
		t := n.NodeType()
		if t == "" {
			return nil, false
		}
		return t, true
	case "tag":
		if v, ok := n.Attr("tag"); ok {
			return v, true
		}
		v, ok := n.Attr("tags")
		return v, ok
	}
	v, ok := n.Attr(key)
	return v, ok
}

func (ev *evaluator) matchAttrs(n Node, items []*syn.Attr) bool {
	v2 := ev.p.q.Dialect != syn.V1
	for _, a := range items {
		if v2 && isFlag(a) {
			if !truthy(n, a.Key) {
				return false
			}
			continue
		}
		if !matchAttr(n, a) {
			return false
		}
	}
	return true
}

// isFlag reports whether a is a bare v2 behavior flag, "[ephemeral]" or
// "[sticky]" (v2 §4 bprop), which tests the flag's truth rather than the
// attribute's presence.
func isFlag(a *syn.Attr) bool {
	return a.Op == syn.OpExists && a.Kind == syn.BlockBracket && (a.Key == "ephemeral" || a.Key == "sticky")
}

// truthy reports whether a node's attribute is set to a true value: present
// and not null, false, a zero number, "" or "false".
func truthy(n Node, key string) bool {
	v, ok := n.Attr(key)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != "" && x != "false"
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return err != nil || f != 0
	}
	return true
}

// matchAttr applies one filter with the v1 §5 comparison rules.
func matchAttr(n Node, a *syn.Attr) bool {
	if a.Value != nil && a.Value.Kind != syn.ValueNumber && !isNull(a.Value) && (a.Op == syn.OpEq || a.Op == syn.OpNe) {
		// Fast path: string headers are extracted at load.
		if v, ok, known := n.s.cachedStr(n.i, a.Key); known && ok {
			return (v == a.Value.Text) == (a.Op == syn.OpEq)
		}
	}
	if a.Value != nil && a.Value.Kind == syn.ValueNumber && (a.Op.IsOrdering() || a.Op == syn.OpEq || a.Op == syn.OpNe) {
		// Fast path: integers of the numeric headers are parsed at load.
		if f, ok, known := n.s.cachedNum(n.i, a.Key); known && ok {
			if r, ok := numOp(a.Op, f, a.Value.Num); ok {
				return r
			}
		}
	}
	v, present := attrValue(n, a.Key)
	if arr, ok := v.([]any); ok && a.Op != syn.OpExists {
		// An array attribute (tags) matches when any element matches;
		// != when no element equals the value.
		if a.Op == syn.OpNe {
			for _, e := range arr {
				if compare(a.Key, e, true, syn.OpEq, a.Value) {
					return false
				}
			}
			return true
		}
		for _, e := range arr {
			if compareAny(a, e) {
				return true
			}
		}
		return false
	}
	if a.Op == syn.OpExists {
		return present && v != nil
	}
	return compareAny(a, v)
}

// numOp applies a comparison operator to two numbers; ok is false for an
// operator that does not compare numbers.
func numOp(op syn.Op, f, y float64) (res, ok bool) {
	switch op {
	case syn.OpEq:
		return f == y, true
	case syn.OpNe:
		return f != y, true
	case syn.OpLt:
		return f < y, true
	case syn.OpLe:
		return f <= y, true
	case syn.OpGt:
		return f > y, true
	case syn.OpGe:
		return f >= y, true
	}
	return false, false
}

func compareAny(a *syn.Attr, v any) bool {
	if a.Op == syn.OpIn {
		for _, lit := range a.Values {
			if compare(a.Key, v, true, syn.OpEq, lit) {
				return true
			}
		}
		return false
	}
	return compare(a.Key, v, true, a.Op, a.Value)
}

// isNull reports whether a literal is the bare word null.
func isNull(l *syn.Value) bool { return l != nil && l.Kind == syn.ValueIdent && l.Text == "null" }

// scalar converts an attribute to its comparable form: a json.Number, a
// string (booleans become "true"/"false"), or nil for null and objects.
func scalar(v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return "true"
		}
		return "false"
	case json.Number, string:
		return x
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return nil
}

func numOf(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && strings.TrimSpace(x) != ""
	}
	return 0, false
}

func litNum(l *syn.Value) (float64, bool) {
	if l.Kind == syn.ValueNumber {
		return l.Num, true
	}
	return numOf(l.Text)
}

// compare applies op between an attribute value and a literal:
//   - null (missing attribute or JSON null) matches only = null and != x;
//   - numeric attributes compare numerically; string attributes as strings;
//   - other attributes: ordering operators compare numerically when both
//     sides parse as numbers, else as strings; = and != preserve types (a
//     JSON number equals only a number literal, a string only a string or
//     bare-word literal);
//   - booleans compare as the strings "true" and "false";
//   - ~ is a substring match on the string forms.
func compare(key string, v any, _ bool, op syn.Op, lit *syn.Value) bool {
	if lit == nil {
		return false
	}
	sv := scalar(v)
	if isNull(lit) {
		switch op {
		case syn.OpEq:
			return sv == nil
		case syn.OpNe:
			return sv != nil
		}
		return false
	}
	if sv == nil {
		return op == syn.OpNe
	}
	switch op {
	case syn.OpEq, syn.OpNe:
		eq := equal(key, sv, lit)
		return eq == (op == syn.OpEq)
	case syn.OpMatch:
		return strings.Contains(strForm(sv), lit.Text)
	}
	var c int
	switch {
	case stringAttrs[key]:
		c = strings.Compare(strForm(sv), litText(lit))
	case numericAttrs[key]:
		x, ok1 := numOf(sv)
		y, ok2 := litNum(lit)
		if !ok1 || !ok2 {
			return false
		}
		c = cmpF(x, y)
	default:
		x, ok1 := numOf(sv)
		y, ok2 := litNum(lit)
		if ok1 && ok2 {
			c = cmpF(x, y)
		} else {
			c = strings.Compare(strForm(sv), litText(lit))
		}
	}
	switch op {
	case syn.OpLt:
		return c < 0
	case syn.OpLe:
		return c <= 0
	case syn.OpGt:
		return c > 0
	case syn.OpGe:
		return c >= 0
	}
	return false
}

func cmpF(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func strForm(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case string:
		return x
	}
	return ""
}

// litText is a literal's text: numbers as written, strings unquoted.
func litText(l *syn.Value) string {
	if l.Kind == syn.ValueNumber {
		return l.Raw
	}
	return l.Text
}

func equal(key string, sv any, lit *syn.Value) bool {
	switch {
	case stringAttrs[key]:
		return strForm(sv) == litText(lit)
	case numericAttrs[key]:
		x, ok1 := numOf(sv)
		y, ok2 := litNum(lit)
		return ok1 && ok2 && x == y
	}
	switch x := sv.(type) {
	case json.Number:
		if lit.Kind != syn.ValueNumber {
			return false
		}
		f, ok := numOf(x)
		return ok && f == lit.Num
	case string:
		return lit.Kind != syn.ValueNumber && x == lit.Text
	}
	return false
}
