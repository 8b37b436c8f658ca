package datalog

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestGrownHint checks that grown keeps the values, doubles the capacity
// without a hint and grows to the hint when it is more, and that trimmed
// copies only values with much unused capacity.
func TestGrownHint(t *testing.T) {
	v := grown(nil, 3, 0)
	copy(v, []uint32{7, 8, 9})
	v = grown(v, 200, 0)
	if len(v) != 200 || v[0] != 7 || v[2] != 9 {
		t.Fatalf("grown: len %d, values %v", len(v), v[:3])
	}
	c := cap(v)
	if v = grown(v, int32(c)+1, 0); cap(v) < 2*c {
		t.Errorf("no hint: capacity %d, want at least %d", cap(v), 2*c)
	}
	c = cap(v)
	if v = grown(v, int32(c)+1, int32(10*c)); cap(v) < 10*c || v[1] != 8 {
		t.Errorf("hint %d: capacity %d, values %v", 10*c, cap(v), v[:3])
	}
	if w := trimmed(v); cap(w)-len(w) > len(w)/4+internBatch || len(w) != len(v) || w[2] != 9 {
		t.Errorf("trimmed: len %d cap %d, want len %d and little unused", len(w), cap(w), len(v))
	}
	full := make([]uint32, 1000, 1100)
	if w := trimmed(full); &w[0] != &full[0] {
		t.Error("trimmed copied values with little unused capacity")
	}
}

// TestSizeHintLoads loads data whose first relation is small and whose
// second is large, so that the first relation's size hint is far too
// large: the DB is still the one encoding/json's load gives.
func TestSizeHintLoads(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"relations": {"a": {"param_types": ["A", "B"], "tuples": [`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["a%d", "b%d"]`, i, i%77)
	}
	b.WriteString(`]}, "z": {"param_types": ["A"], "tuples": [`)
	for i := range 300000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["z%d"]`, i%5003)
	}
	b.WriteString(`]}}}`)
	for _, pipeMin := range []int{-1, 0} {
		db, err := loadJSON(context.Background(), []byte(b.String()), pipeMin)
		if err != nil {
			t.Fatal(err)
		}
		_, ref, _, refErr := loadBoth(b.String())
		if refErr != nil {
			t.Fatal(refErr)
		}
		if got := dump(db); got != ref {
			t.Errorf("pipeMin %d: the load differs from encoding/json's:\n%.300s\nwant:\n%.300s", pipeMin, got, ref)
		}
		if n := db.rels["a"].tab.len(); n != 5000 {
			t.Errorf("pipeMin %d: a has %d tuples, want 5000", pipeMin, n)
		}
	}
}
