package pact

import (
	"fmt"
	"strconv"
	"strings"
)

var legacyNames = [...]string{"base-type-sugar", "cont-offset", "cycle-at", "offset-at", "depth-pseudo", "grouped", "behavior-in-props"}

// String returns a short name of the legacy form, such as "cont-offset".
func (k LegacyKind) String() string {
	if int(k) < len(legacyNames) {
		return legacyNames[k]
	}
	return "legacy(" + strconv.Itoa(int(k)) + ")"
}

var tokenNames = [...]string{"invalid", "time", "root", "type", "hash", "tag", "pseudo", "attrkey", "operator",
	"string", "number", "ident", "control", "combinator", "punct", "comment", "pragma", "depth", "keyword"}

// String returns the token kind's name, such as "pseudo".
func (k TokenKind) String() string {
	if int(k) < len(tokenNames) {
		return tokenNames[k]
	}
	return "token(" + strconv.Itoa(int(k)) + ")"
}

// Dump renders the AST rooted at n as an indented, deterministic text with
// every node's span, for tests and debugging. Each line is
// "Kind start-end details".
func Dump(n Node) string {
	var b strings.Builder
	depth := 0
	Inspect(n, func(n Node) bool {
		if n == nil {
			depth--
			return false
		}
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(dumpLine(n))
		b.WriteByte('\n')
		depth++
		return true
	})
	return b.String()
}

func dumpLine(n Node) string {
	sp := n.Span().String()
	switch n := n.(type) {
	case *File:
		return fmt.Sprintf("File %s %s", sp, n.Dialect)
	case *Pragma:
		return fmt.Sprintf("Pragma %s value=%s %s", sp, n.ValueSpan, n.Dialect)
	case *Comment:
		return fmt.Sprintf("Comment %s %q", sp, n.Text)
	case *Query:
		s := fmt.Sprintf("Query %s %s", sp, n.Dialect)
		if n.IsRange() {
			s += " range"
		}
		if n.Bad {
			s += " bad"
		}
		return s
	case *Time:
		s := "Time " + sp
		if n.History {
			s += " history"
		}
		if n.To != nil {
			s += fmt.Sprintf(" op=%q@%s", n.RangeOp, n.OpSpan)
		}
		return s
	case *TimeAtom:
		s := "Atom " + sp
		switch n.Kind {
		case TimeRelative:
			s += " t" + strconv.Itoa(n.Value)
		case TimeCycle:
			s += " c" + strconv.Itoa(n.Value)
		case TimeAll:
			s += " all"
		}
		if n.Oldest {
			s += " oldest"
		}
		if n.Bare {
			s += " bare"
		}
		if n.Invalid {
			s += " invalid"
		}
		return s
	case *Union:
		return fmt.Sprintf("Union %s commas=%v", sp, n.Commas)
	case *Fallback:
		return fmt.Sprintf("Fallback %s op=%s", sp, n.OpSpan)
	case *Chain:
		return "Chain " + sp
	case *Paren:
		return "Paren " + sp
	case *Position:
		s := "Position " + sp
		if n.IsCoordinate() {
			s += " coordinate"
		}
		if n.Optional {
			s += " optional@" + n.OptSpan.String()
		}
		return s
	case *CoordSet:
		return "CoordSet " + sp
	case *PropSearch:
		return "PropSearch " + sp
	case *Hop:
		switch n.Kind {
		case HopDepth:
			return "Hop " + sp + " depth"
		case HopOffset:
			return fmt.Sprintf("Hop %s offset=%d", sp, n.Offset)
		case HopStep:
			return "Hop " + sp + " step"
		case HopInsert:
			switch n.Insert {
			case InsertStart:
				return "Hop " + sp + " insert=start"
			case InsertEnd:
				return "Hop " + sp + " insert=end"
			case InsertAfter:
				return fmt.Sprintf("Hop %s insert=after:%d", sp, n.Offset)
			case InsertBefore:
				return fmt.Sprintf("Hop %s insert=before:%d", sp, n.Offset)
			}
		}
		return "Hop " + sp
	case *DepthRef:
		s := fmt.Sprintf("Depth %s %d..%d", sp, n.From, n.To)
		if n.Range {
			s += " range"
		}
		if n.Keyword {
			s += " keyword"
		}
		return s
	case *Step:
		s := "Step " + sp
		switch n.Comb {
		case CombDescendant:
			s += " descendant"
		case CombChild:
			s += " child@" + n.CombSpan.String()
		}
		return s
	case *Compound:
		s := "Compound " + sp
		if n.Universal {
			s += " *@" + n.UnivSpan.String()
		}
		return s
	case *Root:
		return fmt.Sprintf("Root %s %s", sp, n.Name)
	case *TypeSel:
		s := fmt.Sprintf("Type %s %q base=%q@%s", sp, n.Name, n.Base, n.BaseSpan)
		if n.Sub != "" {
			s += fmt.Sprintf(" sub=%q@%s", n.Sub, n.SubSpan)
		}
		return s
	case *Hash:
		s := fmt.Sprintf("Hash %s %q@%s", sp, n.Value, n.ValueSpan)
		if n.Quoted {
			s += " quoted"
		}
		return s
	case *Tag:
		return fmt.Sprintf("Tag %s %q@%s", sp, n.Name, n.NameSpan)
	case *Block:
		return fmt.Sprintf("Block %s %s", sp, blockKindName(n.Kind))
	case *Attr:
		s := fmt.Sprintf("Attr %s %s key=%q@%s", sp, blockKindName(n.Kind), n.Key, n.KeySpan)
		if n.Op != OpExists {
			s += fmt.Sprintf(" op=%q@%s", n.Op.String(), n.OpSpan)
		} else {
			s += " exists"
		}
		return s
	case *Value:
		kind := [...]string{"number", "string", "ident"}[n.Kind%3]
		s := fmt.Sprintf("Value %s %s %q", sp, kind, n.Text)
		if n.Kind == ValueNumber {
			s += " num=" + strconv.FormatFloat(n.Num, 'g', -1, 64)
		}
		return s
	case *Pseudo:
		s := fmt.Sprintf("Pseudo %s %q@%s", sp, n.Name, n.NameSpan)
		if n.HasParens {
			s += " args@" + n.ArgsSpan.String()
		}
		return s
	case *PseudoArg:
		if n.Hi != nil {
			return "Arg " + sp + " range"
		}
		return "Arg " + sp
	case *Control:
		s := fmt.Sprintf("Control %s %q@%s", sp, n.Name, n.NameSpan)
		if n.HasValue {
			s += fmt.Sprintf(" value=%q@%s", n.Value, n.ValueSpan)
		}
		return s
	case *Legacy:
		s := fmt.Sprintf("Legacy %s %s", sp, n.Kind)
		if n.Value != "" {
			s += fmt.Sprintf(" value=%q", n.Value)
		}
		if n.Node != nil {
			s += fmt.Sprintf(" node=%T@%s", n.Node, n.Node.Span())
		}
		return s
	}
	return fmt.Sprintf("%T %s", n, sp)
}

func blockKindName(k BlockKind) string {
	switch k {
	case BlockBrace:
		return "{}"
	case BlockGroup:
		return "()"
	}
	return "[]"
}
