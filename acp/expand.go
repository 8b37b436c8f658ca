package acp

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Expansion modes of acp_expand.
const (
	ExpandSummary   = "summary"
	ExpandFull      = "full"
	ExpandInline    = "inline"
	ExpandAnnotated = "annotated"
)

// Expansion is the acp_expand response.
type Expansion struct {
	Original            string   `json:"original" jsonschema:"the text given"`
	Expanded            string   `json:"expanded" jsonschema:"the text with its references expanded"`
	VariablesFound      []string `json:"variables_found" jsonschema:"the variables referenced, in order of first appearance"`
	VariablesResolved   []string `json:"variables_resolved" jsonschema:"the referenced variables that are defined"`
	VariablesUnresolved []string `json:"variables_unresolved" jsonschema:"the referenced variables that are not defined"`
}

// varRef matches a variable reference; compiled on first use, not when
// the process starts.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$[A-Z][A-Z0-9_]*`) })

// Expand replaces $VAR references in text with their definitions from the
// cache's vars. Modes: summary (default) writes a short description,
// inline the variable's value, full the JSON of what it names, annotated
// the reference followed by its summary in brackets. Unknown variables are
// left as written. Each list names a variable once, in order of first
// appearance.
func (ix *Index) Expand(text, mode string) (Expansion, error) {
	return ix.ExpandWithin(text, mode, 0)
}

// ExpandWithin is Expand with an output budget: when the expanded text
// would pass maxBytes bytes (0: budget.DefaultMaxOutputBytes) it stops with a
// budget.LimitError naming --max-output-bytes. Expansion is linear in its output,
// so the budget bounds its time and memory too.
func (ix *Index) ExpandWithin(text, mode string, maxBytes int) (Expansion, error) {
	if maxBytes <= 0 {
		maxBytes = budget.DefaultMaxOutputBytes
	}
	if mode == "" {
		mode = ExpandSummary
	}
	switch mode {
	case ExpandSummary, ExpandFull, ExpandInline, ExpandAnnotated:
	default:
		return Expansion{}, fmt.Errorf("unknown expansion mode %q (want summary, full, inline or annotated)", mode)
	}
	e := Expansion{Original: text, VariablesFound: []string{}, VariablesResolved: []string{}, VariablesUnresolved: []string{}}
	seen := map[string]bool{}
	// The full JSON of a variable's target is encoded once, however often
	// the variable is referenced.
	full := map[string]string{}
	var b strings.Builder
	last := 0
	for _, loc := range varRef().FindAllStringIndex(text, -1) {
		b.WriteString(text[last:loc[0]])
		b.WriteString(expandOne(ix, text[loc[0]:loc[1]], mode, &e, seen, full))
		last = loc[1]
		if b.Len() > maxBytes {
			return Expansion{}, budget.OutputLimit("expanded text", maxBytes)
		}
	}
	b.WriteString(text[last:])
	if b.Len() > maxBytes {
		return Expansion{}, budget.OutputLimit("expanded text", maxBytes)
	}
	e.Expanded = b.String()
	return e, nil
}

// expandOne expands one reference, recording it in e.
func expandOne(ix *Index, ref, mode string, e *Expansion, seen map[string]bool, full map[string]string) string {
	name := ref[1:]
	v, ok := ix.Cache.Vars[name]
	if !seen[name] {
		seen[name] = true
		e.VariablesFound = append(e.VariablesFound, name)
		if ok && v != nil {
			e.VariablesResolved = append(e.VariablesResolved, name)
		} else {
			e.VariablesUnresolved = append(e.VariablesUnresolved, name)
		}
	}
	if !ok || v == nil {
		return ref
	}
	switch mode {
	case ExpandInline:
		return v.Value
	case ExpandFull:
		s, ok := full[name]
		if !ok {
			b, _ := jsonenc.Marshal(ix.varTarget(v))
			s = string(b)
			full[name] = s
		}
		return s
	case ExpandAnnotated:
		return ref + " [" + ix.varSummary(v) + "]"
	}
	return ix.varSummary(v)
}

// varSummary: a symbol reads "name (file:start-end) - description"; other
// variables read "value - description".
func (ix *Index) varSummary(v *Var) string {
	head := v.Value
	if s, ok := ix.Cache.Symbols[v.Value]; ok && (v.Type == "symbol" || v.Type == "") {
		head = s.Name
		if s.File != "" {
			loc := s.File
			if len(s.Lines) == 2 {
				loc = fmt.Sprintf("%s:%d-%d", s.File, s.Lines[0], s.Lines[1])
			} else if len(s.Lines) == 1 {
				loc = fmt.Sprintf("%s:%d", s.File, s.Lines[0])
			}
			head += " (" + loc + ")"
		}
	}
	desc := strings.TrimSpace(v.Description)
	if desc == "" {
		return head
	}
	return head + " - " + desc
}

// varTarget is what a variable names: the symbol, file or domain record, or
// the variable itself when its value names nothing in the cache.
func (ix *Index) varTarget(v *Var) any {
	switch v.Type {
	case "symbol":
		if s, ok := ix.Cache.Symbols[v.Value]; ok {
			return s
		}
	case "file":
		if f, ok := ix.Cache.Files[v.Value]; ok {
			return f
		}
	case "domain":
		if d, ok := ix.Cache.Domains[v.Value]; ok {
			return d
		}
	}
	return v
}
