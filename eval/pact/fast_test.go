package pact

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/jsonenc"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// TestNumericFilterAgreesWithComparison checks the cached-header filter of
// a numeric comparison (filterNumeric: each test an interval) against Go's
// own comparison of the node's value, for every operator and bounds that
// are integers, fractions, negative, zero and beyond the int32 range.
func TestNumericFilterAgreesWithComparison(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"root":{"id":"root","children":[`)
	var ttls []int
	for i, v := range []int{-3, -1, 0, 0, 1, 2, 2, 3, 7, -2147483648, 2147483647} {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id":"n%d","nodeType":"cb","ttl":%d}`, i, v)
		ttls = append(ttls, v)
	}
	sb.WriteString(`]}}`)
	d, err := LoadString(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]func(x, y float64) bool{
		"=":  func(x, y float64) bool { return x == y },
		"!=": func(x, y float64) bool { return x != y },
		"<":  func(x, y float64) bool { return x < y },
		"<=": func(x, y float64) bool { return x <= y },
		">":  func(x, y float64) bool { return x > y },
		">=": func(x, y float64) bool { return x >= y },
	}
	bounds := []string{"0", "-0", "1", "2", "1.5", "-1", "-0.5", "3", "2.999", "-2147483648", "2147483647", "1000000000000", "-1000000000000"}
	for op, cmp := range ops {
		for _, b := range bounds {
			q := fmt.Sprintf(".cb[ttl%s%s]", op, b)
			res, err := Select(context.Background(), d, q, syn.V1, Options{})
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			var y float64
			fmt.Sscan(b, &y)
			var want []string
			for i, v := range ttls {
				if cmp(float64(v), y) {
					want = append(want, fmt.Sprintf("n%d", i))
				}
			}
			if !slices.Equal(res.IDs, want) {
				t.Errorf("%s: got %v, want %v", q, res.IDs, want)
			}
		}
	}
}

// TestStringFilterAgreesWithMatcher checks the cached-header loops of a
// string comparison (filterString, filterChildrenString) against the
// general matcher: the same query with a second, always true test beside
// it takes the general path.
func TestStringFilterAgreesWithMatcher(t *testing.T) {
	src := `{"root":{"id":"root","nodeType":"seq","children":[
	 {"id":"m1","nodeType":"mc","children":[
	  {"id":"a","nodeType":"cb","role":"assistant"},
	  {"id":"b","nodeType":"cb","role":"user"},
	  {"id":"c","nodeType":"tb","role":"assistant"},
	  {"id":"d","nodeType":"cb","role":"assist\u0061nt"},
	  {"id":"e","nodeType":"cb"},
	  {"id":"f","nodeType":"cb","role":1},
	  {"id":"g","nodeType":"cb","role":"assistant","children":[{"id":"g1","nodeType":"cb","role":"assistant"}]}]},
	 {"id":"m2","nodeType":"mc","children":[{"id":"h","nodeType":"cb","role":"assistant"},{"id":"i","nodeType":"cb","role":""}]}]}}`
	d, err := LoadString(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		".cb[role='assistant']", ".cb[role!='assistant']", "[role='assistant']", "[role!='user']",
		".mc > .cb[role='assistant']", ".mc > .cb[role!='assistant']", ".mc > [role='assistant']",
		".cb > .cb[role='assistant']", ".mc > .cb[role='']", ".mc > .zz[role='assistant']", ".zz[role='user']",
	} {
		fast, err := Select(context.Background(), d, q, syn.V1, Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		slow, err := Select(context.Background(), d, strings.TrimSuffix(q, "]")+"][id!='none']", syn.V1, Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !slices.Equal(fast.IDs, slow.IDs) {
			t.Errorf("%s: got %v, the general matcher %v", q, fast.IDs, slow.IDs)
		}
	}
}

// TestResultJSONOfPlainIDs checks that a result whose ids the load found
// plain (printable ASCII without quotes and backslashes) marshals to the
// bytes jsonenc.Marshal writes for its ids, and that a result with any
// other id takes the encoder, a repeated id key counting as its last value.
func TestResultJSONOfPlainIDs(t *testing.T) {
	for _, tc := range []struct {
		ids   string // the children's id members
		plain bool
	}{
		{`"id":"a"`, true},
		{`"id":"a<b>&c~ "`, true},
		{`"id":"é"`, false},
		{`"id":"a\u2028b"`, false},
		{`"id":"` + "\u2028" + `"`, false},
		{`"id":"q\"uote"`, false},
		{`"id":"\u0041"`, false},
		{`"id":"é","id":"x"`, true},
		{`"id":"x","id":"b\\s"`, false},
		{`"id":null`, true},
	} {
		src := `{"root":{"id":"root","children":[{"nodeType":"cb","id":"first"},{"nodeType":"cb",` + tc.ids + `}]}}`
		d, err := LoadString(src)
		if err != nil {
			t.Fatalf("%s: %v", tc.ids, err)
		}
		res, err := Select(context.Background(), d, ".cb", syn.V1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.plain != tc.plain {
			t.Errorf("%s: plain %v, want %v", tc.ids, res.plain, tc.plain)
		}
		got, err := res.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonenc.Marshal(res.IDs)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: %s, want %s", tc.ids, got, want)
		}
	}
}
