package jql

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// TypeKind is the kind of a schema type.
type TypeKind string

// The schema type kinds.
const (
	TString    TypeKind = "string"
	TNumber    TypeKind = "number"
	TBoolean   TypeKind = "boolean"
	TTimestamp TypeKind = "timestamp"
	TObject    TypeKind = "object"
	TArray     TypeKind = "array"
)

// Type is a schema type. Object types have Fields, array types an Elem.
type Type struct {
	// Name names object types ("Artifact"); empty for anonymous types.
	Name string `json:"name,omitempty"`
	// Kind is the type's kind.
	Kind TypeKind `json:"kind"`
	// Enum lists the allowed values of an enumerated string.
	Enum []string `json:"enum,omitempty"`
	// Elem is the element type of an array.
	Elem *Type `json:"elem,omitempty"`
	// Fields are an object's fields.
	Fields []*Field `json:"fields,omitempty"`
	// Discriminator names the field that selects an object's variant.
	Discriminator string `json:"discriminator,omitempty"`
}

// Field is a field of an object type.
type Field struct {
	// Name is the field name.
	Name string `json:"name"`
	// Type is the field's type.
	Type *Type `json:"type"`
	// Doc describes the field.
	Doc string `json:"doc"`
	// Computed fields are derived at query time: selectable, not filterable.
	Computed bool `json:"computed,omitempty"`
	// Variants lists the discriminator values whose documents carry the
	// field; empty when every variant does.
	Variants []string `json:"variants,omitempty"`
}

// Domain is a queryable collection.
type Domain struct {
	// Name is the value of from.
	Name string `json:"name"`
	// Doc describes the domain.
	Doc string `json:"doc"`
	// Root is the type of the domain's documents.
	Root *Type `json:"root"`
	// Default is the default projection.
	Default []string `json:"defaultSelect"`
}

// Schema is the JQL schema: its domains.
type Schema struct {
	// Domains are sessions and activities.
	Domains []*Domain `json:"domains"`
	// Operators are the where operators.
	Operators []string `json:"operators"`
}

func str(doc string) *Field     { return &Field{Type: &Type{Kind: TString}, Doc: doc} }
func num(doc string) *Field     { return &Field{Type: &Type{Kind: TNumber}, Doc: doc} }
func boolean(doc string) *Field { return &Field{Type: &Type{Kind: TBoolean}, Doc: doc} }
func ts(doc string) *Field      { return &Field{Type: &Type{Kind: TTimestamp}, Doc: doc} }

func named(name string, f *Field) *Field { f.Name = name; return f }

func on(f *Field, variants ...string) *Field { f.Variants = variants; return f }

func obj(name string, fields ...*Field) *Type {
	return &Type{Name: name, Kind: TObject, Fields: fields}
}

func arr(t *Type) *Type { return &Type{Kind: TArray, Elem: t} }

func field(name string, t *Type, doc string) *Field { return &Field{Name: name, Type: t, Doc: doc} }

// Activity types, the values of an activity's type field.
var activityTypes = []string{"agentMessaged", "userMessaged", "planGenerated", "planApproved", "progressUpdated", "sessionCompleted", "sessionFailed"}

// NewSchema builds the JQL schema. Each call returns a fresh value.
func NewSchema() *Schema {
	gitPatch := obj("GitPatch",
		named("unidiffPatch", str("The patch in unified diff format.")),
		named("baseCommitId", str("The commit the patch applies to.")),
		named("suggestedCommitMessage", str("A commit message suggested by the agent.")),
	)
	changeSet := obj("ChangeSet",
		named("source", str("The source the changes apply to, e.g. sources/github/owner/repo.")),
		field("gitPatch", gitPatch, "The changes as a git patch."),
	)
	artifact := obj("Artifact",
		&Field{Name: "type", Type: &Type{Kind: TString, Enum: []string{"bashOutput", "media", "changeSet"}}, Doc: "The artifact kind."},
		on(named("command", str("The command that ran.")), "bashOutput"),
		on(named("stdout", str("The command's standard output.")), "bashOutput"),
		on(named("stderr", str("The command's standard error.")), "bashOutput"),
		on(named("output", str("The command's combined output.")), "bashOutput"),
		on(named("exitCode", num("The command's exit code.")), "bashOutput"),
		on(named("format", str("The media MIME type, e.g. image/png.")), "media"),
		on(named("data", str("The media content, base64-encoded.")), "media"),
		on(field("changeSet", changeSet, "The code changes."), "changeSet"),
	)
	artifact.Discriminator = "type"
	step := obj("PlanStep",
		named("id", str("The step id.")),
		named("title", str("The step title.")),
		named("description", str("What the step does.")),
		named("index", num("The step's 0-based position.")),
	)
	plan := obj("Plan",
		named("id", str("The plan id.")),
		field("steps", arr(step), "The plan's steps."),
		named("createTime", ts("When the plan was created.")),
	)
	activity := obj("Activity",
		named("id", str("The activity id.")),
		named("name", str("The activity resource name, sessions/{session}/activities/{activity}.")),
		&Field{Name: "type", Type: &Type{Kind: TString, Enum: activityTypes}, Doc: "The activity kind; it decides which other fields exist."},
		named("createTime", ts("When the activity happened (RFC 3339).")),
		&Field{Name: "originator", Type: &Type{Kind: TString, Enum: []string{"agent", "user", "system"}}, Doc: "Who caused the activity."},
		named("sessionId", str("The id of the session the activity belongs to.")),
		on(named("message", str("The message text.")), "agentMessaged", "userMessaged"),
		on(field("plan", plan, "The generated plan."), "planGenerated"),
		on(named("planId", str("The id of the approved plan.")), "planApproved"),
		on(named("title", str("A short progress title.")), "progressUpdated"),
		on(named("description", str("A longer progress description.")), "progressUpdated"),
		on(named("reason", str("Why the session failed.")), "sessionFailed"),
		field("artifacts", arr(artifact), "Artifacts the activity produced (all activity types)."),
		&Field{Name: "artifactCount", Type: &Type{Kind: TNumber}, Computed: true, Doc: "Computed: the length of the artifacts array (0 when absent)."},
		&Field{Name: "summary", Type: &Type{Kind: TString}, Computed: true, Doc: "Computed: a human-readable, type-specific summary."},
	)
	activity.Discriminator = "type"
	session := obj("SessionResource",
		named("id", str("The session id.")),
		named("name", str("The session resource name, sessions/{id}.")),
		&Field{Name: "state", Type: &Type{Kind: TString, Enum: []string{"queued", "planning", "awaitingPlanApproval", "awaitingUserFeedback", "inProgress", "paused", "failed", "completed"}}, Doc: "The session state."},
		named("title", str("The session title.")),
		named("prompt", str("The prompt that started the session.")),
		named("url", str("The session's web address.")),
		named("createTime", ts("When the session was created (RFC 3339).")),
		named("updateTime", ts("When the session last changed (RFC 3339).")),
		named("requirePlanApproval", boolean("Whether plans wait for approval.")),
		named("automationMode", str("The automation mode, e.g. AUTO_CREATE_PR.")),
		field("sourceContext", obj("SourceContext",
			named("source", str("The source, e.g. sources/github/owner/repo.")),
			field("githubRepoContext", obj("GitHubRepoContext",
				named("startingBranch", str("The branch the session started from.")),
			), "GitHub repository settings."),
		), "The source the session works on."),
		field("outputs", arr(obj("SessionOutput",
			named("type", str("The output kind, e.g. pullRequest.")),
			field("pullRequest", obj("PullRequest",
				named("url", str("The pull request address.")),
				named("title", str("The pull request title.")),
				named("description", str("The pull request description.")),
			), "The pull request the session opened."),
		)), "What the session produced."),
		&Field{Name: "durationMs", Type: &Type{Kind: TNumber}, Computed: true, Doc: "Computed: updateTime - createTime in milliseconds."},
	)
	return &Schema{
		Domains: []*Domain{
			{Name: "sessions", Doc: "Sessions of the local cache; documents are SessionResource.", Root: session, Default: []string{"id", "state", "title", "createTime"}},
			{Name: "activities", Doc: "Activities of the local cache; documents are Activity, a union discriminated by type.", Root: activity, Default: []string{"id", "type", "createTime", "originator", "artifactCount", "summary"}},
		},
		Operators: Operators(),
	}
}

// Domain returns the domain called name, or nil.
func (s *Schema) Domain(name string) *Domain {
	for _, d := range s.Domains {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// DomainNames lists the domain names.
func (s *Schema) DomainNames() []string {
	out := make([]string, len(s.Domains))
	for i, d := range s.Domains {
		out[i] = d.Name
	}
	return out
}

// Lookup returns t's field called name, or nil.
func (t *Type) Lookup(name string) *Field {
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Resolved is the outcome of resolving a path against a domain.
type Resolved struct {
	// Fields are the fields along the path; shorter than the path when
	// resolution failed.
	Fields []*Field
	// Bad is the index of the first segment that failed, or -1.
	Bad int
	// Reason explains a failure.
	Reason string
	// ThroughArray is true when the path crosses an array.
	ThroughArray bool
}

// Field returns the last resolved field, or nil.
func (r Resolved) Field() *Field {
	if len(r.Fields) == 0 {
		return nil
	}
	return r.Fields[len(r.Fields)-1]
}

// Resolve walks a path through the domain's root type; arrays are crossed
// implicitly.
func (d *Domain) Resolve(p Path) Resolved {
	r := Resolved{Bad: -1}
	t := d.Root
	for i, s := range p.Segments {
		f := t.Lookup(s.Name)
		if f == nil {
			r.Bad = i
			if t == nil || t.Kind != TObject {
				r.Reason = fmt.Sprintf("%q is a %s and has no field %q", p.Text[:max(0, segEnd(p, i-1))], r.Field().Type.Kind, s.Name)
			} else {
				r.Reason = fmt.Sprintf("%s has no field %q", typeLabel(t, d, i), s.Name)
			}
			return r
		}
		r.Fields = append(r.Fields, f)
		t = f.Type
		if s.Array && t.Kind != TArray {
			r.Bad = i
			r.Reason = fmt.Sprintf("%q is not an array", s.Name)
			return r
		}
		if t.Kind == TArray {
			r.ThroughArray = true
			t = t.Elem
		}
	}
	return r
}

func segEnd(p Path, i int) int {
	if i < 0 {
		return 0
	}
	n := 0
	for j := 0; j <= i; j++ {
		n += len(p.Segments[j].Name)
		if p.Segments[j].Array {
			n += 2
		}
		if j > 0 {
			n++
		}
	}
	return min(n, len(p.Text))
}

func typeLabel(t *Type, d *Domain, depth int) string {
	if t.Name != "" {
		return t.Name
	}
	if depth == 0 {
		return d.Name
	}
	return "the object"
}

// WriteText writes the schema in a human-readable form.
func (s *Schema) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, d := range s.Domains {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "domain %s: %s\n", d.Name, d.Doc)
		fmt.Fprintf(&b, "  default select: [%s]\n", strings.Join(d.Default, ", "))
		writeFields(&b, d.Root, "  ")
	}
	fmt.Fprintf(&b, "\noperators: %s\n", strings.Join(s.Operators, ", "))
	b.WriteString("equality shorthand: {path: literal} means {path: {eq: literal}}; paths through arrays match if any element matches.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// String returns the type as the hover shows it: "string", "number[]",
// "object", ...
func (t *Type) String() string { return typeString(t) }

func typeString(t *Type) string {
	switch t.Kind {
	case TArray:
		return typeString(t.Elem) + "[]"
	case TObject:
		if t.Name != "" {
			return t.Name
		}
		return "object"
	}
	if len(t.Enum) > 0 {
		return string(t.Kind) + " (" + strings.Join(t.Enum, " | ") + ")"
	}
	return string(t.Kind)
}

func writeFields(b *strings.Builder, t *Type, indent string) {
	if t.Kind == TArray {
		t = t.Elem
	}
	for _, f := range t.Fields {
		fmt.Fprintf(b, "%s%s: %s", indent, f.Name, typeString(f.Type))
		if f.Computed {
			b.WriteString(" [computed]")
		}
		if len(f.Variants) > 0 {
			fmt.Fprintf(b, " [only %s=%s]", t.Discriminator, strings.Join(f.Variants, "|"))
		}
		fmt.Fprintf(b, " -- %s\n", f.Doc)
		ft := f.Type
		if ft.Kind == TArray {
			ft = ft.Elem
		}
		if ft.Kind == TObject {
			writeFields(b, ft, indent+"  ")
		}
	}
}

// Check validates a parsed query against the schema: the domain, every
// select and where path, and each operator against its field's type. An
// unknown select path is a warning (its values are simply omitted); an
// unknown where path, and any operator misuse, is an error.
func (s *Schema) Check(q *Query) []syntax.Diagnostic {
	var ds []syntax.Diagnostic
	if q.From == nil || q.From.Kind != KindString {
		return nil
	}
	d := s.Domain(q.From.Str)
	if d == nil {
		ds = append(ds, diag(q.From.Sp, CodeInvalidDomain, fmt.Sprintf("unknown domain %q; want %s", q.From.Str, strings.Join(s.DomainNames(), " or "))))
		return ds
	}
	for _, it := range q.Select {
		if it.Star {
			continue
		}
		r := d.Resolve(it.Path)
		if r.Bad >= 0 {
			dg := diag(it.Path.Segments[r.Bad].Sp, CodeInvalidPath, r.Reason+"; the path selects nothing")
			dg.Severity = syntax.SeverityWarning
			ds = append(ds, dg)
		}
	}
	for _, c := range q.Where {
		r := d.Resolve(c.Path)
		if r.Bad >= 0 {
			ds = append(ds, diag(c.Path.Segments[r.Bad].Sp, CodeInvalidPath, r.Reason))
			continue
		}
		f := r.Field()
		if f.Computed {
			ds = append(ds, diag(c.Path.Sp, CodeInvalidPath, fmt.Sprintf("%s is a computed field: it can be selected but not filtered", f.Name)))
			continue
		}
		if msg := opAllowed(c.Op, f.Type, c.Operand); msg != "" {
			ds = append(ds, diag(c.OpSpan, CodeInvalidOperator, msg))
		}
	}
	return ds
}

// opAllowed says why an operator cannot be used on a field type, or "".
func opAllowed(op string, t *Type, operand *Value) string {
	k := t.Kind
	if k == TArray {
		k = t.Elem.Kind
	}
	if op == OpExists {
		return ""
	}
	if k == TObject {
		return fmt.Sprintf("%s is not supported on an object field; only exists is", op)
	}
	switch op {
	case OpContains:
		if k != TString && k != TTimestamp {
			return fmt.Sprintf("contains is not supported on a %s field; only on strings", k)
		}
	case OpGt, OpLt, OpGte, OpLte:
		if k == TBoolean {
			return fmt.Sprintf("%s is not supported on a boolean field", op)
		}
		if operand != nil && (operand.Kind == KindNumber) != (k == TNumber) {
			return fmt.Sprintf("%s compares a %s field with a %s", op, k, operand.Kind)
		}
	}
	return ""
}
