package datalog

import (
	"fmt"
	"strings"
	"testing"
)

// dump renders a DB's relations with their types and sorted tuples.
func dump(db *DB) string {
	var b strings.Builder
	for _, r := range db.Relations() {
		fmt.Fprintf(&b, "%s%q:", r.Name, r.Types)
		rel := db.rels[r.Name]
		t := db.strings(rel.tab)
		fmt.Fprintf(&b, "%q\n", t)
	}
	return b.String()
}

// loadBoth loads src with the scanner and with encoding/json, and returns
// both renderings (or errors).
func loadBoth(src string) (scan, ref string, scanErr, refErr error) {
	db, scanErr := LoadJSON([]byte(src))
	if scanErr == nil {
		scan = dump(db)
	}
	d, refErr := ReadJSON(strings.NewReader(src))
	if refErr == nil {
		var rdb *DB
		rdb, refErr = Load(d)
		if refErr == nil {
			ref = dump(rdb)
		}
	}
	return
}

var scanCases = []string{
	`{"relations": {"path": {"param_types": ["Proc", "Proc"], "tuples": [["a","b"],["b","c"],["a","b"]]}, "e": {"param_types": [], "tuples": [[]]}}}`,
	`{"relations": {"p": {"tuples": [["x\u00e9\n", "\ud83d\ude00"]], "param_types": ["A","B"]}}, "other": [1, 2.5e3, {"a": null}, true, false]}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["a", "b"]]}}}`,
	`{"relations": {"p": null}}`,
	`{"relations": null}`,
	`{}`,
	`null`,
	`[]`,
	``,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [[1]]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [[null], ["a"]]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["a"]]}, "p": {"param_types": ["B"], "tuples": [["b"]]}}}`,
	`{"Relations": {"p": {"Param_Types": ["A"], "TUPLES": [["a"]]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["` + "\xff\xfe" + `"]]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["a"]]}}} trailing`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["a"],]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["a\x01"]]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["a"]], "x": 01}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": null}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [null]}}}`,
	`{"relations": {"p": {"param_types": ["A"], "tuples": [["\q"]]}}}`,
	`{"relations": {"p": {"param_types": ["A", "B"], "tuples": [ [ "a" , "b" ] , ["a", "c\u0041"], ["a","cA"], ["x","é"], ["a", null], ["a", "b"], [], ["a" "b"]]}}}`,
	`{"relations": {"p": {"param_types": ["A", "B"], "tuples": [ [ "a" , "b" ] , ["a", "c\u0041"], ["a","cA"], ["x","é"], ["a", null], ["a", "b"]]}}}`,
	`{"relations": {"p": {"param_types": ["1","2","3","4","5","6","7","8","9"], "tuples": [["a","b","c","d","e","f","g","h","i"], ["a","b","c","d","e","f","g","h","j"], ["a","b","c","d","e","f","g","h","i"]]}}}`,
	`{"relations": {"p": {"param_types": ["A", "B"], "tuples": [["a", "b"], ["a", "b", "c"]]}}}`,
}

// TestLoadJSONMatchesReadJSON pins that the scanning loader accepts and
// rejects what encoding/json does and loads the same relations.
func TestLoadJSONMatchesReadJSON(t *testing.T) {
	for _, src := range scanCases {
		scan, ref, se, re := loadBoth(src)
		if (se == nil) != (re == nil) {
			t.Errorf("%q: scanner error %v, encoding/json error %v", src, se, re)
			continue
		}
		if scan != ref {
			t.Errorf("%q:\nscanner:\n%s\nencoding/json:\n%s", src, scan, ref)
		}
	}
}

// FuzzLoadJSON compares the scanning loader with encoding/json on
// arbitrary input.
func FuzzLoadJSON(f *testing.F) {
	for _, s := range scanCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		scan, ref, se, re := loadBoth(src)
		if (se == nil) != (re == nil) {
			t.Fatalf("scanner error %v, encoding/json error %v", se, re)
		}
		if scan != ref {
			t.Fatalf("scanner:\n%s\nencoding/json:\n%s", scan, ref)
		}
	})
}
