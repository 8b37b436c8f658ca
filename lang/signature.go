package lang

import (
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/syntax/datalog"
)

// Signature is the signature of what is being called at a position: a
// Datalog relation whose arguments are being written.
type Signature struct {
	// Label is the whole signature, "path(String, String)".
	Label string
	// Params are the parameters' labels, each a substring of Label.
	Params []string
	// Active is the index of the parameter being written.
	Active int
	// Doc says what the relation is (declared, derived, read from data).
	Doc string
}

// SignatureAt returns the signature of the relation whose argument list
// holds the byte offset off in a Datalog program, with the argument being
// written; ok is false elsewhere and for other languages. The text is read
// as it is being typed: the atom need not be complete nor the program
// valid.
func (p *Parsed) SignatureAt(off int) (Signature, bool) {
	if _, ok := p.AST.(*datalog.Program); !ok {
		return Signature{}, false
	}
	info := p.datalogInfo()
	if info == nil {
		return Signature{}, false
	}
	name, active, ok := openCall(p.File.Text(), off)
	if !ok {
		return Signature{}, false
	}
	ri := info.Relations[name]
	if ri == nil {
		return Signature{}, false
	}
	sig := Signature{Label: name + "(" + strings.Join(ri.Types, ", ") + ")", Active: active}
	sig.Params = append(sig.Params, ri.Types...)
	switch {
	case ri.Derived && ri.InData:
		sig.Doc = "Derived by rules and also given as facts."
	case ri.Derived:
		sig.Doc = "Derived by rules."
	case ri.InData:
		sig.Doc = "Read from data (facts or input)."
	}
	if len(ri.Types) == 0 {
		sig.Doc = strings.TrimSpace(fmt.Sprintf("%s %s takes no arguments.", sig.Doc, name))
	}
	return sig, true
}

// openCall finds the innermost parenthesis open at off in Datalog source
// (outside strings and comments, within the statement off is in), the
// identifier just before it and the number of commas at its level before
// off.
func openCall(src string, off int) (name string, commas int, ok bool) {
	type open struct{ at, commas int }
	var stack []open
	for i := 0; i < off && i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < off && i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < off && i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return "", 0, false
			}
			i += end + 3
		case c == '(':
			stack = append(stack, open{at: i})
		case c == ')':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case c == ',' && len(stack) > 0:
			stack[len(stack)-1].commas++
		case c == ';':
			stack = stack[:0]
		}
	}
	if len(stack) == 0 {
		return "", 0, false
	}
	top := stack[len(stack)-1]
	j := top.at
	for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	k := j
	for k > 0 && isIdent(src[k-1]) {
		k--
	}
	if k == j {
		return "", 0, false
	}
	return src[k:j], top.commas, true
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
