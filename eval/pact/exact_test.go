package pact

import (
	"context"
	"errors"
	"strings"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// keyedData has keyed blocks in the system container, two sealed turns and
// the active head, with document order n02-policy, n08-q, n13-q, n22-q,
// n25-q, and flag attributes of every truthiness.
const keyedData = `{"root":{"id":"root","children":[
 {"id":"sys","nodeType":"^sys","children":[
  {"id":"n02-policy","nodeType":"block","key":"policy","role":"system","ephemeral":false,"sticky":true}]},
 {"id":"seq","nodeType":"^seq","children":[
  {"id":"t1","nodeType":"seg","children":[
   {"id":"n08-q","nodeType":"block","key":"q","role":"user","created_at_ns":5,"ephemeral":true},
   {"id":"n09-a","nodeType":"block","key":"a","role":"assistant","ephemeral":null}]},
  {"id":"t2","nodeType":"seg","children":[
   {"id":"n13-q","nodeType":"block","key":"q","role":"user","created_at_ns":7,"ephemeral":0},
   {"id":"n14-r","nodeType":"block","role":"assistant","ephemeral":"false","sticky":1}]}]},
 {"id":"ah","nodeType":"^ah","children":[
  {"id":"n22-q","nodeType":"block","key":"q","role":"user","created_at_ns":9,"ephemeral":"yes"},
  {"id":"n25-q","nodeType":"block","key":"q","role":"user","created_at_ns":8,"sticky":"true"}]}]}}`

func selectIDs(t *testing.T, d *Data, src string, dialect syn.Dialect) []string {
	t.Helper()
	res, err := Select(context.Background(), d, src, dialect, Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return res.IDs
}

func loadString(t *testing.T, s string) *Data {
	t.Helper()
	d, err := LoadString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func eq(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestMultiKeySetsInDocumentOrder pins that a set over several keys comes
// back in canonical document order (v2 §2.2), while a same-key set keeps
// the v2 §3.5.2 order (depth DESC, created_at_ns DESC, ...), and that a
// key filter that does not pin one key orders like any other filter.
func TestMultiKeySetsInDocumentOrder(t *testing.T) {
	d := loadString(t, keyedData)
	cases := []struct{ src, want string }{
		{`{key in ["policy","q"]}`, "n02-policy n08-q n13-q n22-q n25-q"},
		{`{key in ["q","policy"]}`, "n02-policy n08-q n13-q n22-q n25-q"},
		{`.block {key in ["a","q"]}`, "n08-q n09-a n13-q n22-q n25-q"},
		// Same-key sets: region depth DESC (t1 is d2, t2 is d1, then d0),
		// created_at_ns DESC within a depth.
		{`#q`, "n08-q n13-q n22-q n25-q"},
		{`{key="q"}`, "n08-q n13-q n22-q n25-q"},
		{`{key in ["q"]}`, "n08-q n13-q n22-q n25-q"},
		{`.block {key="q"}`, "n08-q n13-q n22-q n25-q"},
		{`#q ?? #policy`, "n08-q n13-q n22-q n25-q"},
	}
	for _, c := range cases {
		if got := strings.Join(selectIDs(t, d, c.src, syn.V2), " "); got != c.want {
			t.Errorf("%s: got %s, want %s", c.src, got, c.want)
		}
	}
	// Same-key order is depth DESC then created_at_ns DESC: n22 (9) before n25 (8) at d0.
	d2 := loadString(t, strings.Replace(keyedData, `"created_at_ns":9`, `"created_at_ns":1`, 1))
	if got := strings.Join(selectIDs(t, d2, `#q`, syn.V2), " "); got != "n08-q n13-q n25-q n22-q" {
		t.Errorf("#q with n22 older than n25: got %s", got)
	}
	for _, src := range []string{`#q @order=path`, `{key in ["q","policy"]}`, `.block {key!="zzz"}`} {
		got := strings.Join(selectIDs(t, d2, src, syn.V2), " ")
		want := strings.Join(selectIDs(t, d2, strings.Replace(src, "#q @order=path", "{key in [\"q\", \"zz\"]}", 1), syn.V2), " ")
		if strings.Contains(got, "n25-q n22-q") || got != want && src == "#q @order=path" {
			t.Errorf("%s: got %s, want document order", src, got)
		}
	}
	a := selectIDs(t, d, `.block {key!="zzz"}`, syn.V2)
	b := selectIDs(t, d, `.block {role!="zzz"}`, syn.V2)
	if !eq(a, b) {
		t.Errorf(`.block {key!="zzz"} = %v, .block {role!="zzz"} = %v: same nodes, different order`, a, b)
	}
	all := selectIDs(t, d, `.block`, syn.V2)
	if !eq(b, all) {
		t.Errorf(`.block {role!="zzz"} = %v, want document order %v`, b, all)
	}
}

// TestVendorControls pins that controls the evaluator does not know are
// accepted and ignored (v2 §4 "allow ... vendor @foo", §5 "allow vendor
// passthrough"), that @mode is rejected without a time prefix (v2 §3.7
// "Validators MUST reject such facets when no @t is provided"), and that
// the same validity function serves every tool.
func TestVendorControls(t *testing.T) {
	d := loadString(t, keyedData)
	plain := selectIDs(t, d, `.block`, syn.V2)
	for _, src := range []string{`.block @foo=bar`, `@t0 .block @mode=latest`, `.block @frobnicate`, `.block @x-y=1 @*`, `@t0 .block @mode=pairwise`} {
		q, diags := syn.ParseQuery(src, syn.V2)
		if len(diags) > 0 {
			t.Fatalf("%s: parse: %v", src, diags)
		}
		if v := syn.Validate(q); len(v) > 0 {
			t.Errorf("%s: Validate: %v", src, v)
		}
		if got := selectIDs(t, d, src, syn.V2); !eq(got, plain) {
			t.Errorf("%s: got %v, want %v", src, got, plain)
		}
	}
	for src, msg := range map[string]string{
		`.block @limit=x`:     "@limit needs a non-negative integer",
		`.block @mode=nope`:   "@mode must be latest or pairwise",
		`.block @order=foo`:   "@order must be path, key or id",
		`.block @mode=latest`: "@mode needs a time prefix",
	} {
		q, _ := syn.ParseQuery(src, syn.V2)
		v := syn.Validate(q)
		if len(v) != 1 || !strings.Contains(v[0].Message, msg) || v[0].Code != syn.CodeInvalid {
			t.Errorf("%s: Validate = %v, want %q", src, v, msg)
		}
		_, err := Select(context.Background(), d, src, syn.V2, Options{})
		var qe *Error
		if !errors.As(err, &qe) || qe.Msg != v[0].Message || qe.Span != v[0].Span {
			t.Errorf("%s: eval error %v, want the Validate diagnostic %v", src, err, v)
		}
	}
}

// TestBehaviorFlagsAreTruthy pins that the v2 behavior flags [ephemeral]
// and [sticky] test the flag's truth: present and not null, false, 0, ""
// or "false". Other bare keys, and v1 attribute filters, test presence.
func TestBehaviorFlagsAreTruthy(t *testing.T) {
	d := loadString(t, keyedData)
	cases := []struct {
		src     string
		dialect syn.Dialect
		want    string
	}{
		{`.block [ephemeral]`, syn.V2, "n08-q n22-q"},
		{`.block [sticky]`, syn.V2, "n02-policy n14-r n25-q"},
		{`.block [ephemeral, sticky]`, syn.V2, ""},
		{`.block[ephemeral]`, syn.V2, "n08-q n22-q"},
		{`.block [ephemeral=false]`, syn.V2, "n02-policy n14-r"}, // §5.5: booleans compare as "true"/"false"
		{`.block [key]`, syn.V2, "n02-policy n08-q n09-a n13-q n22-q n25-q"},
		{`.block[ephemeral]`, syn.V1, "n02-policy n08-q n13-q n14-r n22-q"},
	}
	for _, c := range cases {
		if got := strings.Join(selectIDs(t, d, c.src, c.dialect), " "); got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.dialect, c.src, got, c.want)
		}
	}
}

// TestPositionNeedsDepth pins that positions without a leading depth,
// (1,0) and (0), are rejected (v2 §4 coordinate := "(" "d" int ...)
// instead of silently returning [].
func TestPositionNeedsDepth(t *testing.T) {
	d := loadString(t, keyedData)
	for _, src := range []string{"(1,0)", "(0)", "@t0 (0, 1)", "((d1,0),(0))"} {
		_, err := Select(context.Background(), d, src, syn.V2, Options{})
		if err == nil || !strings.Contains(err.Error(), "expected a depth dK as the first hop of the position") {
			t.Errorf("%s: got %v, want the depth error", src, err)
		}
	}
	if got := selectIDs(t, d, "(d0, 0)", syn.V2); len(got) != 0 {
		t.Errorf("(d0, 0): got %v", got)
	}
}

// TestFallbackAfterTrailerMessage pins that a "??" after the trailing
// blocks is reported without naming "??" as expected.
func TestFallbackAfterTrailerMessage(t *testing.T) {
	src := `@t0 .block [ cad>=0 ] ?? @t0 .seg`
	_, diags := syn.ParseQuery(src, syn.V2)
	if len(diags) == 0 {
		t.Fatal("no error")
	}
	m := diags[0].Message
	if strings.Contains(m, `expected a combinator, "??"`) || !strings.Contains(m, `"??"`) || diags[0].Span.Start != strings.Index(src, "??") {
		t.Errorf("message %q at %v", m, diags[0].Span)
	}
}
