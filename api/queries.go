package api

// QueriesParams are the parameters of queries.
type QueriesParams struct {
	Text     string `json:"text"`
	Language string `json:"language"`
	Dialect  string `json:"dialect,omitempty"`
	Path     string `json:"path,omitempty"`
	// Offset, when given, asks for the query at that byte offset of the
	// text only, as the language server runs it from the cursor: in PACT
	// the query of the offset's line, elsewhere the last query whose
	// range touches the offset.
	Offset *int `json:"offset,omitempty"`
}

// Query is one query of a text, as the language table divides the text:
// a PACT query (one per line), a JQL query, a Datalog rule or fact.
type Query struct {
	// Text is the query as written: what evaluate takes for a PACT or JQL
	// query.
	Text  string `json:"text"`
	Range *Range `json:"range"`
	// Relation is, for a Datalog rule or fact, the relation of its first
	// head: the relation a run of the rule shows.
	Relation string `json:"relation,omitempty"`
}

// Queries lists the queries of a text in source order, or with Offset the
// one at that offset (none when no query is there).
func (s *Session) Queries(p QueriesParams) ([]Query, error) {
	l, name, aerr := textName(p.Language, p.Path)
	if aerr != nil {
		return nil, aerr
	}
	if !l.CanEvaluate() {
		return nil, usagef("%s has no queries of its own (want pact, jql or datalog)", l.Name)
	}
	d, aerr := dialect(p.Dialect)
	if aerr != nil {
		return nil, aerr
	}
	if p.Offset != nil && (*p.Offset < 0 || *p.Offset > len(p.Text)) {
		return nil, usagef("offset %d is outside the text (0 to %d bytes)", *p.Offset, len(p.Text))
	}
	parsed := l.Parse(name, p.Text, d)
	spans := parsed.Queries()
	if p.Offset != nil {
		spans = spans[:0]
		if q, ok := parsed.QueryAt(*p.Offset); ok {
			spans = append(spans, q)
		}
	}
	heads := map[int]string{}
	for _, r := range parsed.Rules() {
		if len(r.Heads) > 0 {
			heads[r.Span.Start] = r.Heads[0].Relation
		}
	}
	out := make([]Query, 0, len(spans))
	for _, q := range spans {
		out = append(out, Query{Text: q.Text, Range: rangeOf(parsed.File, q.Span), Relation: heads[q.Span.Start]})
	}
	return out, nil
}
