package lsp

import (
	"context"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/lang"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// pactCompletion is one proposal: Text replaces Span (the partial word before
// the cursor, possibly empty).
type pactCompletion struct {
	Label    string
	Text     string
	Span     syntax.Span
	Category string // "root", "type", "pseudo", "control", "time", "attribute"
	Detail   string
}

// Complete proposes what can be written at off in f: roots after "^",
// types after ".", pseudo-classes after ":", attribute keys inside "[" and
// "{", snapshots and controls after "@", and the start of a selector
// elsewhere.
func completePACT(f *pact.File, off int, known lang.Vocabulary) []pactCompletion {
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
	if q := f.QueryAt(off); q != nil && q.Dialect != lang.DialectUnset {
		d = q.Dialect
	}
	voc := lang.PACTVocabulary(d)
	var out []pactCompletion
	add := func(cat, label, text, detail string) {
		out = append(out, pactCompletion{Label: label, Text: text, Span: partial, Category: cat, Detail: detail})
	}
	var prev byte
	if w > lineStart {
		prev = src[w-1]
	}
	switch {
	case prev == '^':
		for _, e := range voc["root"] {
			add("root", e.Name, strings.TrimPrefix(e.Name, "^"), e.Summary)
		}
	case prev == '.' && !(w >= 2 && src[w-2] == '.'):
		seen := map[string]bool{}
		for _, e := range voc["type"] {
			seen[e.Name[1:]] = true
			add("type", e.Name, e.Name[1:], e.Summary)
		}
		for _, t := range known.Types {
			if t != "" && !seen[t] && !strings.HasPrefix(t, "^") && isPlainName(t) {
				seen[t] = true
				add("type", "."+t, t, "type seen in the sample data")
			}
		}
	case prev == ':' && !inBrackets(line):
		for _, e := range voc["pseudo"] {
			text := e.Name[1:]
			if text == "nth" || text == "depth" {
				text += "("
			}
			if d == lang.V2 && e.Name == ":depth" {
				continue // deprecated in v2: depth hops replace it
			}
			add("pseudo", e.Name, text, e.Summary)
		}
	case prev == '@':
		cat := "time"
		if strings.TrimSpace(src[lineStart:w-1]) != "" {
			cat = "control"
		}
		if cat == "time" {
			for _, t := range []string{"t0", "t-1", "*"} {
				add("time", "@"+t, t, "snapshot")
			}
			if d == lang.V2 {
				add("time", "@history", "history", "every snapshot, diffed")
			}
		} else {
			for _, e := range voc["control"] {
				add("control", e.Name, strings.TrimPrefix(e.Name, "@")+"=", e.Summary)
			}
		}
	case prev == '[' || prev == '{' || ((prev == ' ' || prev == ',') && inBrackets(line)):
		seen := map[string]bool{}
		for _, e := range voc["attribute"] {
			seen[e.Name] = true
			add("attribute", e.Name, e.Name, e.Summary)
		}
		for _, k := range known.Keys {
			if k != "children" && !seen[k] && isPlainName(k) {
				seen[k] = true
				add("attribute", k, k, "attribute seen in the sample data")
			}
		}
	default:
		if strings.TrimSpace(src[lineStart:w]) == "" {
			add("time", "@t0", "@t0", "the current snapshot")
		}
		for _, e := range voc["root"] {
			add("root", e.Name, e.Name, e.Summary)
		}
		for _, e := range voc["type"] {
			add("type", e.Name, e.Name, e.Summary)
		}
	}
	// Keep the proposals that extend what was typed.
	typed := src[partial.Start:partial.End]
	keep := out[:0]
	for _, c := range out {
		if strings.HasPrefix(c.Text, typed) {
			keep = append(keep, c)
		}
	}
	sort.SliceStable(keep, func(i, j int) bool { return keep[i].Category < keep[j].Category })
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

// Complete proposes roots, types, pseudo-classes, attribute keys,
// snapshots and controls, with the types and keys of the sample data.
func (pactLanguage) Complete(ctx context.Context, s *Snapshot, off int) []CompletionItem {
	pf := pactFile(s)
	if pf == nil {
		return nil
	}
	var known lang.Vocabulary
	if s.Workspace != nil {
		if path := s.Workspace.DataPath(s); path != "" {
			// The types and keys of the data, found once per data file
			// version. The language table has no vocabulary of loaded
			// data: the file is decoded for it and only the lists kept.
			v, err := s.Workspace.Load("pact-known", path, func(r *files.Reader, p string) (any, error) {
				d, err := lang.ByID(lang.PACT).Load(context.Background(), r, p)
				if err != nil {
					return nil, err
				}
				return lang.DataVocabulary(d), nil
			})
			if err == nil {
				known, _ = v.(lang.Vocabulary)
			}
		}
	}
	var out []CompletionItem
	for _, c := range completePACT(pf, off, known) {
		edit := syntax.TextEdit{Span: c.Span, NewText: c.Text}
		out = append(out, CompletionItem{Label: c.Label, Kind: completionKind(c.Category), Detail: c.Detail, Edit: &edit})
	}
	return out
}

// completionKind maps a proposal's category to an LSP CompletionItemKind.
func completionKind(cat string) int {
	switch cat {
	case "root":
		return 9 // Module
	case "type":
		return 7 // Class
	case "pseudo":
		return 2 // Method
	case "attribute":
		return 10 // Property
	case "control":
		return 14 // Keyword
	case "time":
		return 21 // Constant
	}
	return 1 // Text
}
