package lang

import (
	"context"
	"reflect"
	"testing"
)

// TestDataVocabulary lists the node types and attribute keys of PACT data,
// and nothing for the data of other languages.
func TestDataVocabulary(t *testing.T) {
	paths := sample(t)
	v := DataVocabulary(load(t, PACT, paths[PACT]))
	if want := []string{"cb:hover", "cb:summary", "mt", "root"}; !reflect.DeepEqual(v.Types, want) {
		t.Errorf("types = %q, want %q", v.Types, want)
	}
	if len(v.Keys) == 0 {
		t.Errorf("no attribute keys in %+v", v)
	}
	if v := DataVocabulary(load(t, JQL, paths[JQL])); v.Types != nil || v.Keys != nil {
		t.Errorf("JQL data has a vocabulary: %+v", v)
	}
}

// TestSampleDocs returns a domain's documents as stored, at most n.
func TestSampleDocs(t *testing.T) {
	paths := sample(t)
	d := load(t, JQL, paths[JQL])
	docs, err := SampleDocs(context.Background(), d, "sessions", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"id": "s1", "state": "paused"}}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("docs = %v, want %v", docs, want)
	}
	if docs, err := SampleDocs(context.Background(), load(t, PACT, paths[PACT]), "sessions", 5); docs != nil || err != nil {
		t.Errorf("PACT data gave documents %v, %v", docs, err)
	}
}
