package sqlgen

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/jql"
)

// TestIsColumnName compares isColumnName with the regular expression it
// stands for, on edge cases and on every string of up to two bytes.
func TestIsColumnName(t *testing.T) {
	ref := regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)
	cases := []string{"", "a", "a_1", "_a", "1a", "A", "aB", "a-b", "a\n", "é", "aé",
		strings.Repeat("a", 39), strings.Repeat("a", 40), strings.Repeat("a", 41), "a" + strings.Repeat("_", 39)}
	for i := 0; i < 256; i++ {
		cases = append(cases, string([]byte{byte(i)}))
		for _, c := range []byte{'a', 'z', '0', '9', '_', 'A', 0x80, '\n'} {
			cases = append(cases, string([]byte{byte(i), c}), string([]byte{c, byte(i)}))
		}
	}
	for _, s := range cases {
		if got, want := isColumnName(s), ref.MatchString(s); got != want {
			t.Errorf("isColumnName(%q) = %v, the expression says %v", s, got, want)
		}
	}
}

// TestMappedNodesOnly checks a mapping with `nodes: mapped`: it is
// recorded and read back from the database's rows, the node table keeps
// only a mapped field's several values, a condition on a mapped field
// compiles and one on any other field is refused by name.
func TestMappedNodesOnly(t *testing.T) {
	m, err := ParseJQLMapping([]byte("activities:\n  nodes: mapped\n  columns:\n    artifacts.exitCode: exit_code\n"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][3]string
	if err := m.Rows(func(table string, row []any) error {
		rows = append(rows, [3]string{row[0].(string), row[1].(string), row[2].(string)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := [][3]string{{"activities", `["artifacts","exitCode"]`, "exit_code"}, {"activities", "[]", ""}}; !slices.Equal(rows, want) {
		t.Errorf("recorded rows %q, want %q", rows, want)
	}
	back, err := JQLMappingFromRows(rows)
	if err != nil || !mappedNodesOnly(back["activities"]) || len(back["activities"]) != 2 {
		t.Errorf("read back %v, %v", back, err)
	}
	for doc, want := range map[string]int{
		`{"id":"a","artifacts":[{"exitCode":1}],"type":"x"}`:                  0,
		`{"id":"b","artifacts":[{"exitCode":1},{"exitCode":2}],"type":"x"}`:   2,
		`{"id":"c","artifacts":[{"exitCode":[1,2]}],"type":"x"}`:              3,
		`{"id":"d","artifacts":[{"command":"ls"},{"exitCode":0}],"type":"x"}`: 0,
	} {
		n := 0
		err := JQLRowsMapped("activities", 0, []byte(doc), m["activities"], func(table string, row []any) error {
			if table == "activities_nodes" {
				if row[1] != `["artifacts","exitCode"]` {
					t.Errorf("%s: a node of %v", doc, row[1])
				}
				n++
			}
			return nil
		})
		if err != nil || n != want {
			t.Errorf("%s: %d nodes (%v), want %d", doc, n, err, want)
		}
	}
	for src, refused := range map[string]bool{
		`{from: 'activities', where: {'artifacts.exitCode': {neq: 0}}}`:       false,
		`{from: 'activities', where: {type: 'x'}}`:                            true,
		`{from: 'activities', where: {'artifacts.exitCode': {exists: true}}}`: false,
	} {
		q, ds := syn.ParseQuery(src)
		_, err := CompileJQLMapped(q, ds, Postgres, m)
		var ue *UnsupportedError
		if got := errors.As(err, &ue); got != refused || err != nil && !strings.Contains(err.Error(), "a condition on type cannot be compiled to postgres") {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, err := ParseJQLMapping([]byte("activities:\n  nodes: some\n")); err == nil || !strings.Contains(err.Error(), `nodes is "some" (want all or mapped)`) {
		t.Errorf("nodes: some: %v", err)
	}
}
