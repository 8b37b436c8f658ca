package jql

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	syn "github.com/ctxql/ctxql/syntax/jql"
)

type specCase struct {
	ID          string `yaml:"id"`
	Description string `yaml:"description"`
	Given       struct {
		Query map[string]any `yaml:"query"`
		Data  []any          `yaml:"data"`
	} `yaml:"given"`
	Then struct {
		Returns []any `yaml:"returns"`
	} `yaml:"then"`
}

type deviation struct {
	Note    string `yaml:"note"`
	Returns []any  `yaml:"returns"`
}

// canon round-trips a value through JSON so YAML and JSON numbers compare equal.
func canon(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(normalize(v))
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpecCases runs every case of the spec's cases.yaml, verbatim; cases
// listed in deviations.yaml are checked against the documented deviation and
// must differ from the verbatim expectation.
func TestSpecCases(t *testing.T) {
	b, err := os.ReadFile("../../testdata/jql/cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []specCase `yaml:"cases"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile("../../testdata/jql/deviations.yaml")
	if err != nil {
		t.Fatal(err)
	}
	devs := map[string]deviation{}
	if err := yaml.Unmarshal(db, &devs); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) < 20 {
		t.Fatalf("only %d cases loaded", len(doc.Cases))
	}
	for _, c := range doc.Cases {
		t.Run(c.ID, func(t *testing.T) {
			qb, err := json.Marshal(c.Given.Query)
			if err != nil {
				t.Fatal(err)
			}
			dom, _ := c.Given.Query["from"].(string)
			mem, err := NewMemory(map[string][]any{dom: c.Given.Data})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Eval(context.Background(), string(qb), mem)
			if err != nil {
				t.Fatalf("%s: %v", qb, err)
			}
			var got []any
			for _, d := range res.Docs {
				var v any
				if err := json.Unmarshal(d, &v); err != nil {
					t.Fatalf("bad output %s: %v", d, err)
				}
				got = append(got, v)
			}
			want := canon(t, c.Then.Returns)
			if dv, ok := devs[c.ID]; ok {
				if cmp.Diff(want, canon(t, got)) == "" {
					t.Fatalf("deviation %s listed but the verbatim expectation holds", c.ID)
				}
				want = canon(t, dv.Returns)
				t.Logf("deviation: %s", dv.Note)
			}
			if d := cmp.Diff(want, canon(t, got)); d != "" {
				t.Errorf("%s (%s) mismatch (-want +got):\n%s", c.ID, c.Description, d)
			}
		})
	}
}

var _ = syn.DefaultLimit
