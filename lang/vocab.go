package lang

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
)

// Vocabulary is the words sample data uses, for completion: the node types
// and attribute keys of PACT data, sorted.
type Vocabulary struct {
	Types []string // nodeType values
	Keys  []string // attribute keys
}

// vocabularyNodes bounds the nodes DataVocabulary looks at.
const vocabularyNodes = 20000

// DataVocabulary returns the node types and attribute keys of the newest
// snapshot of PACT sample data (its first 20,000 nodes); the zero
// Vocabulary for data of other languages.
func DataVocabulary(d Data) Vocabulary {
	pd, ok := d.(pactData)
	if !ok || pd.d == nil || len(pd.d.Snapshots) == 0 {
		return Vocabulary{}
	}
	types, keys := map[string]bool{}, map[string]bool{}
	s := pd.d.Snapshots[len(pd.d.Snapshots)-1]
	for i := range min(s.Len(), vocabularyNodes) {
		n := s.Node(i)
		types[n.NodeType()] = true
		for _, a := range n.Attributes() {
			keys[a.Key] = true
		}
	}
	var v Vocabulary
	for t := range types {
		v.Types = append(v.Types, t)
	}
	for k := range keys {
		v.Keys = append(v.Keys, k)
	}
	sort.Strings(v.Types)
	sort.Strings(v.Keys)
	return v
}

// SampleDocs returns up to n documents of a domain of JQL sample data as
// stored, every field kept (a query's documents keep only the domain's
// schema fields): what completion and the field checks look at. Data of
// other languages has no documents.
func SampleDocs(ctx context.Context, d Data, domain string, n int) ([]any, error) {
	jd, ok := d.(jqlData)
	if !ok || n <= 0 {
		return nil, nil
	}
	var docs []any
	errEnough := errors.New("enough documents")
	err := jd.src.Scan(ctx, domain, func(raw []byte) error {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			docs = append(docs, v)
		}
		if len(docs) >= n {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, &DataError{Err: err}
	}
	return docs, nil
}
