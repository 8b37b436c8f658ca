// Package pact parses PACT context selectors (the v1 chained selector
// dialect) and PACT context queries (the v2 dialect) into one spanned AST.
//
// Every node records its byte span in the source text. Legacy and deprecated
// forms (".block:TYPE", "cont[offset=N]", "c@N", "*@+", ":depth(...)" in v2,
// grouped shorthand, ttl/cad inside "{...}") parse into the same AST with a
// Legacy marker so that the linter can flag them and the migrator can
// rewrite them.
//
// # Entry points
//
// ParseQuery parses one query string; ParseFile parses a .pact file (one
// query per line, "//" comments, an optional first-line "// pact: v1" or
// "// pact: v2" pragma) and also returns every token for semantic
// highlighting. Inspect walks the AST; Dump prints it with spans.
//
// # Engineering choice: a hand-written parser
//
// The lexer is hand-written and total: it never fails, every byte belongs to
// exactly one token, and bytes no rule accepts become invalid tokens. The
// parser is a hand-written recursive-descent parser over that lexer rather
// than a participle grammar, for three reasons:
//
//   - Recovery and partial ASTs. Whitespace is significant in both dialects
//     (it is the descendant combinator, and the parts of a compound selector
//     must touch), several constructs are decided by one token of lookahead
//     plus adjacency ("[" after a type is an attribute filter, after a space
//     the behavior block; "(" after a type is grouped shorthand, elsewhere a
//     position), and errors must leave a usable partial Query with every
//     error reported. participle stops at the first error and offers no
//     per-rule resynchronisation, so each of these would need hand-written
//     code around the grammar anyway.
//   - Span fidelity. Every node records exact byte spans of its parts (the
//     ":" of a pseudo, the ">" of a combinator, the value of a "#key"),
//     which the linter and formatter rely on.
//   - Speed. participle's regexp lexers cost about 40 µs per selector on the
//     reference machine, a hand lexer about 1 µs; BenchmarkLex and
//     BenchmarkParse (which runs cascadia, a hand-written CSS selector
//     compiler, in the same run as the anchor) track it. See
//     docs/performance.md.
package pact

import "github.com/ctxql/ctxql/syntax"

// Dialect selects the PACT language version.
type Dialect uint8

// The dialects. The zero value means "not specified"; files default to V2.
const (
	DialectUnset Dialect = iota
	V1
	V2
)

// String returns "v1", "v2" or "".
func (d Dialect) String() string {
	switch d {
	case V1:
		return "v1"
	case V2:
		return "v2"
	}
	return ""
}

// ParseDialect reads a dialect name, "v1" or "v2", as the pragma, the
// configuration, the settings of the editor and the command line write it.
// ok is false for any other text (the empty string included).
func ParseDialect(s string) (d Dialect, ok bool) {
	switch s {
	case "v1":
		return V1, true
	case "v2":
		return V2, true
	}
	return DialectUnset, false
}

// DialectNames are the names ParseDialect accepts, oldest first.
func DialectNames() []string { return []string{"v1", "v2"} }

// Node is implemented by every AST node.
type Node interface {
	// Span returns the byte range the node covers.
	Span() syntax.Span
}

// File is a parsed .pact file: one query per non-blank, non-comment line.
type File struct {
	Src         *syntax.File
	Dialect     Dialect             // effective dialect (pragma, else the parser's default)
	Pragma      *Pragma             // the "// pact: vN" pragma of the leading comment block, if present
	Queries     []*Query            // in source order
	Comments    []*Comment          // every "//" comment, pragma included
	Tokens      []Token             // every token, for hover and semantic highlighting
	Diagnostics []syntax.Diagnostic // parse errors, one or more per bad line
}

// Pragma is the "// pact: v1" or "// pact: v2" comment. It stands in the
// file's leading comment block: the comment and blank lines before the
// first query, in any order with the other comments there.
type Pragma struct {
	Sp        syntax.Span // the whole comment
	ValueSpan syntax.Span // the "v1"/"v2" text
	Dialect   Dialect
}

// Span implements Node.
func (p *Pragma) Span() syntax.Span { return p.Sp }

// Comment is a "//" comment running to the end of the line.
type Comment struct {
	Sp   syntax.Span
	Text string // including the leading "//"
}

// Span implements Node.
func (c *Comment) Span() syntax.Span { return c.Sp }

// Query is one selector (v1) or query (v2):
//
//	@time  body  {props}  [behavior]  @controls
//
// Only Expr is required; the time prefix defaults to @t0.
type Query struct {
	Sp       syntax.Span
	Dialect  Dialect
	Time     *Time      // nil when omitted (meaning @t0)
	Expr     Expr       // the selector body; nil when it could not be parsed
	Props    *Block     // trailing "{...}" property filters (v2)
	Behavior *Block     // trailing "[...]" behavior filters (v2)
	Controls []*Control // trailing "@name[=value]" controls (v2)
	Legacy   []*Legacy  // every legacy or deprecated form found in the query, in source order
	Bad      bool       // the query had parse errors; the AST is partial
}

// Span implements Node.
func (q *Query) Span() syntax.Span { return q.Sp }

// IsRange reports whether the query addresses a snapshot range (and so
// returns a RangeDiffLatestResult rather than a list of ids).
func (q *Query) IsRange() bool { return q.Time != nil && (q.Time.To != nil || q.Time.History) }

// Time is the temporal prefix: a single snapshot, a range or @history.
type Time struct {
	Sp      syntax.Span
	From    *TimeAtom
	To      *TimeAtom   // the range end, nil for a single snapshot
	RangeOp string      // ".." or ":" for a range
	OpSpan  syntax.Span // span of RangeOp
	History bool        // "@history", shorthand for @t0..@t-*
}

// Span implements Node.
func (t *Time) Span() syntax.Span { return t.Sp }

// TimeKind is the kind of a snapshot reference.
type TimeKind uint8

// The snapshot reference kinds.
const (
	TimeRelative TimeKind = iota // @t0, @t-N (and @t+N, which the v2 grammar admits)
	TimeCycle                    // @cN
	TimeAll                      // @*
)

// TimeAtom is one snapshot reference.
type TimeAtom struct {
	Sp      syntax.Span
	Kind    TimeKind
	Value   int  // relative offset (0, -1, ...) or absolute cycle
	Oldest  bool // "@t-*": the oldest snapshot (range ends only)
	Bare    bool // written without "@t"/"@c", as the "-1" in "@t-5..-1"
	Invalid bool // could not be parsed; Value is meaningless
}

// Span implements Node.
func (a *TimeAtom) Span() syntax.Span { return a.Sp }

// Expr is a selector body: a chain, a union, a fallback, a position, a
// coordinate set, a parenthesised selector or a standalone property search.
type Expr interface {
	Node
	exprNode()
}

// Union is the v1 comma group "A, B": the de-duplicated union of its items in
// canonical document order.
type Union struct {
	Sp     syntax.Span
	Items  []Expr
	Commas []syntax.Span
}

// Fallback is the v2 "A ?? B": evaluate A; if it matches nothing, B.
type Fallback struct {
	Sp     syntax.Span
	Left   Expr
	Right  Expr
	OpSpan syntax.Span
}

// Chain is a sequence of compound selectors joined by combinators, with an
// optional leading v2 depth scope ("d1", "d1..d3").
type Chain struct {
	Sp    syntax.Span
	Scope *DepthRef // nil when absent
	Steps []*Step
}

// Paren is a parenthesised selector chain "( .seg .cont > .block )".
type Paren struct {
	Sp    syntax.Span
	Inner Expr
}

// Position is a v2 parenthesised position "(d1, seg, cont[offset=0], *:block)"
// or coordinate "(d1, 0, 1)". A coordinate is a Position whose hops are one
// depth hop followed by offsets only.
type Position struct {
	Sp       syntax.Span
	Hops     []*Hop
	Optional bool        // trailing "?" (mutations only)
	OptSpan  syntax.Span // span of "?"
}

// CoordSet is a set of coordinates "((d1,0), (d2,0,1))".
type CoordSet struct {
	Sp     syntax.Span
	Coords []*Position
}

// PropSearch is a standalone "{...}" property search over the whole tree.
type PropSearch struct {
	Sp    syntax.Span
	Block *Block
}

func (e *Union) Span() syntax.Span      { return e.Sp }
func (e *Fallback) Span() syntax.Span   { return e.Sp }
func (e *Chain) Span() syntax.Span      { return e.Sp }
func (e *Paren) Span() syntax.Span      { return e.Sp }
func (e *Position) Span() syntax.Span   { return e.Sp }
func (e *CoordSet) Span() syntax.Span   { return e.Sp }
func (e *PropSearch) Span() syntax.Span { return e.Sp }

func (*Union) exprNode()      {}
func (*Fallback) exprNode()   {}
func (*Chain) exprNode()      {}
func (*Paren) exprNode()      {}
func (*Position) exprNode()   {}
func (*CoordSet) exprNode()   {}
func (*PropSearch) exprNode() {}

// IsCoordinate reports whether p is a canonical coordinate (dK, o1, o2, ...).
func (p *Position) IsCoordinate() bool {
	if len(p.Hops) == 0 || p.Hops[0].Kind != HopDepth || p.Hops[0].Depth.IsRange() {
		return false
	}
	for _, h := range p.Hops[1:] {
		if h.Kind != HopOffset {
			return false
		}
	}
	return true
}

// HopKind classifies the hops of a Position.
type HopKind uint8

// The hop kinds.
const (
	HopDepth  HopKind = iota // "dN", "dA..dB", "depth(N)"
	HopOffset                // an integer child offset, "0", "-1"
	HopStep                  // a compound selector, "seg", "cont[offset=0]", "*:block"
	HopInsert                // an insertion sentinel: trailing ",", "end", "+N", "-N"
)

// Hop is one element of a Position.
type Hop struct {
	Sp     syntax.Span
	Kind   HopKind
	Depth  *DepthRef  // HopDepth
	Offset int        // HopOffset, and the N of "+N"/"-N" for HopInsert
	Step   *Compound  // HopStep
	Insert InsertKind // HopInsert
}

// Span implements Node.
func (h *Hop) Span() syntax.Span { return h.Sp }

// InsertKind is the kind of an insertion sentinel.
type InsertKind uint8

// The insertion sentinels.
const (
	InsertStart  InsertKind = iota // trailing comma
	InsertEnd                      // "end"
	InsertAfter                    // "+N"
	InsertBefore                   // "-N"
)

// DepthRef is a structural depth "dN", "dA..dB" or "depth(N)": d-1 is the
// system container, d0 the active head, d1 the newest sealed turn.
type DepthRef struct {
	Sp      syntax.Span
	From    int
	To      int  // equal to From unless a range
	Range   bool // written "dA..dB"
	Keyword bool // written "depth(N)"
}

// Span implements Node.
func (d *DepthRef) Span() syntax.Span { return d.Sp }

// IsRange reports whether d spans more than one depth.
func (d *DepthRef) IsRange() bool { return d.Range && d.From != d.To }

// Combinator joins two steps of a chain.
type Combinator uint8

// The combinators.
const (
	CombNone       Combinator = iota // the first step
	CombDescendant                   // whitespace
	CombChild                        // ">"
)

// Step is one compound selector in a chain with the combinator before it. In
// v2 a step may instead be a parenthesised position, as in "(d2,0) .note".
type Step struct {
	Sp       syntax.Span
	Comb     Combinator
	CombSpan syntax.Span // span of ">" (empty for descendant)
	Sel      *Compound   // the compound selector, or nil when Group is set
	Group    Expr        // a Position, CoordSet or Paren used as a step
}

// Span implements Node.
func (s *Step) Span() syntax.Span { return s.Sp }

// Compound is a compound selector: every part must match the same node.
//
//	^seq  *  d1  .mt  .cb:summary  #id  +tag  [k=v]  (k=v k2=v2)  :nth(2)
type Compound struct {
	Sp        syntax.Span
	Universal bool        // "*"
	UnivSpan  syntax.Span // span of "*"
	Root      *Root
	Depth     *DepthRef // v2 depth hop written as a step, "d0 .config"
	Types     []*TypeSel
	Hashes    []*Hash // "#x": an id in v1, a key in v2
	Tags      []*Tag
	Attrs     []*Attr // "[...]" filters and grouped "(...)" shorthand, in source order
	Pseudos   []*Pseudo
}

// Span implements Node.
func (c *Compound) Span() syntax.Span { return c.Sp }

// Root is a region root "^sys", "^seq", "^ah" or "^root".
type Root struct {
	Sp   syntax.Span
	Name string // without "^"
}

// Span implements Node.
func (r *Root) Span() syntax.Span { return r.Sp }

// TypeSel is a type anchor ".mt" or a namespaced/sugared type ".cb:summary".
type TypeSel struct {
	Sp       syntax.Span
	Name     string      // the text after ".", including any ":suffix" (v1 namespaced type: "cb:summary")
	Base     string      // the part before ":" ("cb")
	Sub      string      // the part after ":" ("summary"), empty when absent
	BaseSpan syntax.Span // span of Base
	SubSpan  syntax.Span // span of Sub, empty when absent
}

// Span implements Node.
func (t *TypeSel) Span() syntax.Span { return t.Sp }

// Hash is "#value": a node id in v1, a key in v2. Quoted keys are allowed in v2.
type Hash struct {
	Sp        syntax.Span
	Value     string // unquoted
	ValueSpan syntax.Span
	Quoted    bool
}

// Span implements Node.
func (h *Hash) Span() syntax.Span { return h.Sp }

// Tag is "+tag".
type Tag struct {
	Sp       syntax.Span
	Name     string
	NameSpan syntax.Span
}

// Span implements Node.
func (t *Tag) Span() syntax.Span { return t.Sp }

// BlockKind records how a filter was written.
type BlockKind uint8

// The filter block forms.
const (
	BlockBracket BlockKind = iota // "[...]": a v1 attribute or a v2 behavior filter
	BlockBrace                    // "{...}": a v2 property filter
	BlockGroup                    // "(...)" grouped shorthand after a type
)

// Block is a "{...}", "[...]" or grouped "(...)" list of filters.
type Block struct {
	Sp    syntax.Span
	Kind  BlockKind
	Items []*Attr
}

// Span implements Node.
func (b *Block) Span() syntax.Span { return b.Sp }

// Op is a comparison operator.
type Op uint8

// The operators. OpExists is "[key]" with no operator.
const (
	OpExists Op = iota
	OpEq        // =
	OpNe        // !=
	OpLt        // <
	OpLe        // <=
	OpGt        // >
	OpGe        // >=
	OpMatch     // ~ (substring match)
	OpIn        // "in [..]" or "= [..]"
)

var opText = [...]string{"", "=", "!=", "<", "<=", ">", ">=", "~", "in"}

// String returns the operator as written canonically.
func (o Op) String() string {
	if int(o) < len(opText) {
		return opText[o]
	}
	return "?"
}

// IsOrdering reports whether o is one of < <= > >=.
func (o Op) IsOrdering() bool { return o == OpLt || o == OpLe || o == OpGt || o == OpGe }

// Attr is one filter: "key", "key op value" or "key in [v1, v2]". Inside a
// compound it came from "[...]" or a grouped "(...)"; inside a Block from that
// block.
type Attr struct {
	Sp      syntax.Span
	Key     string
	KeySpan syntax.Span
	Op      Op
	OpSpan  syntax.Span
	Value   *Value   // nil for OpExists and OpIn
	Values  []*Value // OpIn
	Kind    BlockKind
}

// Span implements Node.
func (a *Attr) Span() syntax.Span { return a.Sp }

// ValueKind is the lexical kind of a literal.
type ValueKind uint8

// The literal kinds.
const (
	ValueNumber ValueKind = iota
	ValueString           // quoted
	ValueIdent            // bare word, compared as a string
)

// Value is a literal in a filter or pseudo argument.
type Value struct {
	Sp   syntax.Span
	Kind ValueKind
	Raw  string  // as written, quotes included
	Text string  // unquoted, escapes resolved
	Num  float64 // for ValueNumber
}

// Span implements Node.
func (v *Value) Span() syntax.Span { return v.Sp }

// Pseudo is ":name" or ":name(args)".
type Pseudo struct {
	Sp        syntax.Span
	Name      string
	NameSpan  syntax.Span
	HasParens bool
	ArgsSpan  syntax.Span // inside the parentheses
	Args      []*PseudoArg
}

// Span implements Node.
func (p *Pseudo) Span() syntax.Span { return p.Sp }

// PseudoArg is one argument of a pseudo: a value or an inclusive range "1-3".
type PseudoArg struct {
	Sp    syntax.Span
	Value *Value // the value, or the low end of a range
	Hi    *Value // the high end of a range, nil otherwise
}

// Span implements Node.
func (a *PseudoArg) Span() syntax.Span { return a.Sp }

// Control is a trailing v2 control "@limit=50", "@order=path", "@mode=latest", "@*".
type Control struct {
	Sp        syntax.Span
	Name      string // "*" for the vendor passthrough "@*"
	NameSpan  syntax.Span
	Value     string // empty when absent
	ValueSpan syntax.Span
	HasValue  bool
}

// Span implements Node.
func (c *Control) Span() syntax.Span { return c.Sp }

// LegacyKind names a legacy or deprecated form.
type LegacyKind uint8

// The legacy and deprecated forms. For each, Legacy.Node is:
// LegacyBaseTypeSugar the *TypeSel (Value: TYPE); LegacyContOffset the *Hop
// (Value: N); LegacyCycleAt the *Hop, parsed as the offset N (Value: N);
// LegacyOffsetAt the universal *Compound (Value: "+" or "-");
// LegacyDepthPseudo the *Pseudo (Value: the argument text); LegacyGrouped the
// "(...)" *Block, whose items are also in Compound.Attrs; and
// LegacyBehaviorInProps the *Attr (Value: "ttl" or "cad").
const (
	LegacyBaseTypeSugar   LegacyKind = iota // ".block:TYPE" (v2 type sugar; canonical output expands it)
	LegacyContOffset                        // "cont[offset=N]" inside a position
	LegacyCycleAt                           // "c@N"
	LegacyOffsetAt                          // "*@+" / "*@-"
	LegacyDepthPseudo                       // ":depth(...)" in v2
	LegacyGrouped                           // grouped shorthand ".type(a=1 b=2)"
	LegacyBehaviorInProps                   // "ttl"/"cad" inside "{...}"
)

// Legacy marks one legacy or deprecated form in a query.
type Legacy struct {
	Sp    syntax.Span
	Kind  LegacyKind
	Node  Node   // the AST node carrying the form (a *TypeSel, *Hop, *Pseudo, *Attr, ...)
	Value string // the form's argument where it has one: TYPE, N, "+"/"-"
}

// Span implements Node.
func (l *Legacy) Span() syntax.Span { return l.Sp }

// TokenKind classifies a lexical token for hover and semantic highlighting.
type TokenKind uint8

// The token kinds. The lexer assigns a lexical kind; the parser refines it
// (an identifier after "." becomes TokenType, after "^" TokenRoot, ...).
const (
	TokenInvalid    TokenKind = iota // a byte sequence no rule accepts, or an unterminated string
	TokenTime                        // "@t0", "@t-1", "@c42", "@history", "@*" as a snapshot
	TokenRoot                        // "^" and the root name of "^seq"
	TokenType                        // "." and the name of a type anchor, "*" in a type position
	TokenHash                        // "#" and the id (v1) or key (v2) after it
	TokenTag                         // "+" and the tag name of "+tag"
	TokenPseudo                      // ":" and the name of a pseudo-class
	TokenAttrKey                     // the key of a filter "[key=...]", "{key=...}"
	TokenOperator                    // = != < <= > >= ~ in ?? ? and range operators ".." ":"
	TokenString                      // a quoted string
	TokenNumber                      // a number
	TokenIdent                       // any other identifier (bare values, hop names)
	TokenControl                     // a trailing control "@limit", "@*"
	TokenCombinator                  // the child combinator ">"
	TokenPunct                       // brackets, braces, parentheses, commas
	TokenComment                     // a "//" comment
	TokenPragma                      // the first-line "// pact: vN" pragma
	TokenDepth                       // a depth reference "d1", "d1..d3", "depth"
	TokenKeyword                     // an insertion sentinel "end" or the "in" operator word
)

// Token is a lexical token with its span.
type Token struct {
	Kind TokenKind
	Sp   syntax.Span
}
