package lang

import (
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// pactCategory orders PACT proposals by category name, as the editor
// lists them.
var pactCategory = map[CompletionKind]string{
	CompleteAttribute: "attribute", CompleteControl: "control", CompletePseudo: "pseudo",
	CompleteRoot: "root", CompleteSnapshot: "time", CompleteType: "type",
}

// Complete proposes what can be written at off in f: roots after "^",
// types after ".", pseudo-classes after ":", attribute keys inside "[" and
// "{", snapshots and controls after "@", and the start of a selector
// elsewhere.
func completePACT(f *pact.File, off int, known Vocabulary) []Completion {
	src := f.Src.Text()
	off = min(max(off, 0), len(src))
	lineStart := f.Src.LineStart(f.Src.LineOf(off))
	line := src[lineStart:off]
	if strings.Contains(line, "//") {
		return nil // inside a comment
	}
	// The partial word before the cursor.
	w := off
	for w > lineStart && isPACTWordByte(src[w-1]) {
		w--
	}
	partial := syntax.Sp(w, off)
	d := f.Dialect
	if q := f.QueryAt(off); q != nil && q.Dialect != DialectUnset {
		d = q.Dialect
	}
	voc := PACTVocabulary(d)
	var out []Completion
	add := func(kind CompletionKind, label, text, detail string) {
		out = append(out, Completion{Label: label, Kind: kind, Detail: detail, Edit: syntax.TextEdit{Span: partial, NewText: text}})
	}
	var prev byte
	if w > lineStart {
		prev = src[w-1]
	}
	switch {
	case prev == '^':
		for _, e := range voc["root"] {
			add(CompleteRoot, e.Name, strings.TrimPrefix(e.Name, "^"), e.Summary)
		}
	case prev == '.' && !(w >= 2 && src[w-2] == '.'):
		seen := map[string]bool{}
		for _, e := range voc["type"] {
			seen[e.Name[1:]] = true
			add(CompleteType, e.Name, e.Name[1:], e.Summary)
		}
		for _, t := range known.Types {
			if t != "" && !seen[t] && !strings.HasPrefix(t, "^") && isPlainName(t) {
				seen[t] = true
				add(CompleteType, "."+t, t, "type seen in the sample data")
			}
		}
	case prev == ':' && !inBrackets(line):
		for _, e := range voc["pseudo"] {
			text := e.Name[1:]
			if text == "nth" || text == "depth" {
				text += "("
			}
			if d == V2 && e.Name == ":depth" {
				continue // deprecated in v2: depth hops replace it
			}
			add(CompletePseudo, e.Name, text, e.Summary)
		}
	case prev == '@':
		if strings.TrimSpace(src[lineStart:w-1]) == "" {
			for _, t := range []string{"t0", "t-1", "*"} {
				add(CompleteSnapshot, "@"+t, t, "snapshot")
			}
			if d == V2 {
				add(CompleteSnapshot, "@history", "history", "every snapshot, diffed")
			}
		} else {
			for _, e := range voc["control"] {
				add(CompleteControl, e.Name, strings.TrimPrefix(e.Name, "@")+"=", e.Summary)
			}
		}
	case prev == '[' || prev == '{' || ((prev == ' ' || prev == ',') && inBrackets(line)):
		seen := map[string]bool{}
		for _, e := range voc["attribute"] {
			seen[e.Name] = true
			add(CompleteAttribute, e.Name, e.Name, e.Summary)
		}
		for _, k := range known.Keys {
			if k != "children" && !seen[k] && isPlainName(k) {
				seen[k] = true
				add(CompleteAttribute, k, k, "attribute seen in the sample data")
			}
		}
	default:
		if strings.TrimSpace(src[lineStart:w]) == "" {
			add(CompleteSnapshot, "@t0", "@t0", "the current snapshot")
		}
		for _, e := range voc["root"] {
			add(CompleteRoot, e.Name, e.Name, e.Summary)
		}
		for _, e := range voc["type"] {
			add(CompleteType, e.Name, e.Name, e.Summary)
		}
	}
	// Keep the proposals that extend what was typed.
	typed := src[partial.Start:partial.End]
	keep := out[:0]
	for _, c := range out {
		if strings.HasPrefix(c.Edit.NewText, typed) {
			keep = append(keep, c)
		}
	}
	sort.SliceStable(keep, func(i, j int) bool { return pactCategory[keep[i].Kind] < pactCategory[keep[j].Kind] })
	return keep
}

func isPACTWordByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isPlainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isPACTWordByte(s[i]) && s[i] != ':' {
			return false
		}
	}
	return s != ""
}

// inBrackets reports whether the end of line is inside "[...]" or "{...}".
func inBrackets(line string) bool {
	depth := 0
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth > 0
}
