package qtest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// edit replaces the bytes of a span.
type edit struct {
	sp   syntax.Span
	text string
}

// Update returns the test file's text with the expected values of its
// failing cases replaced by what the queries returned: a want list gets the
// results (in the same style, flow or block, the file used), a count the
// number of results. Everything else — layout, comments, other keys, cases
// that passed or could not run — stays as it was. It reports whether it
// changed anything.
func Update(f *File, rs []*Result) ([]byte, bool) {
	var edits []edit
	for _, r := range rs {
		c := r.Case
		if r.File != f || c == nil || r.Status != Fail {
			continue
		}
		got := unique(r.Got)
		if c.Want != nil {
			edits = append(edits, edit{c.Want.Sp, listText(f.Src, c.Want.Sp, got)})
		}
		if c.Count != nil && *c.Count != len(got) {
			edits = append(edits, edit{c.CountSp, fmt.Sprint(len(got))})
		}
	}
	if len(edits) == 0 {
		return []byte(f.Src.Text()), false
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.sp.Start - a.sp.Start })
	src := f.Src.Text()
	for _, e := range edits {
		src = src[:e.sp.Start] + e.text + src[e.sp.End:]
	}
	return []byte(src), src != f.Src.Text()
}

// listText writes items as a YAML list in the style of the list at sp: a
// block list ("- x" lines) keeps its indentation, anything else becomes a
// flow list of JSON values.
func listText(file *syntax.File, sp syntax.Span, items []string) string {
	old := file.Slice(sp)
	if strings.HasPrefix(old, "-") && len(items) > 0 {
		line := file.LineOf(sp.Start)
		indent := file.Text()[file.LineStart(line):sp.Start]
		if strings.TrimSpace(indent) != "" {
			indent = strings.Repeat(" ", len(indent))
		}
		var b strings.Builder
		for i, it := range items {
			if i > 0 {
				b.WriteString("\n" + indent)
			}
			b.WriteString("- " + it)
		}
		return b.String()
	}
	if strings.HasPrefix(old, "-") {
		// An empty block list: a flow list on the key's line would need the
		// newline before it removed; "[]" on the item's line is valid YAML.
		return "[]"
	}
	return "[" + strings.Join(items, ", ") + "]"
}
