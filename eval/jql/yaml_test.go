package jql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// yamlDocs returns a YAML list of n activity documents, each line
// indented by indent spaces, with a comment, a block scalar and a nested
// list in some of them.
func yamlDocs(n int, indent string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s- id: a%07d\n%s  sessionId: s%d\n%s  type: planGenerated\n", indent, i, indent, i%100, indent)
		switch i % 4 {
		case 1:
			fmt.Fprintf(&b, "%s  # a comment\n%s  message: |\n%s    line one\n%s    - not an item\n", indent, indent, indent, indent)
		case 2:
			fmt.Fprintf(&b, "%s  tags:\n%s    - x\n%s    - {k: %d}\n", indent, indent, indent, i)
		case 3:
			fmt.Fprintf(&b, "%s  message: \"quoted %d\"\n\n", indent, i)
		}
	}
	return b.String()
}

// TestYAMLPieces pins that YAML data decoded in pieces (decodeYAML) is
// what the YAML library decodes from the whole text: the same value, or
// an error with the same message, for each shape the pieces apply to and
// for texts decoded whole.
func TestYAMLPieces(t *testing.T) {
	big := yamlDocs(3000, "")
	cases := map[string]string{
		"list":             big,
		"domains":          "sessions:\n" + yamlDocs(500, "  ") + "# between\nactivities:\n" + yamlDocs(2000, "    ") + "other: 3\n",
		"flow value":       "activities: [{id: a}, {id: b}]\nsessions:\n  - id: s\n",
		"empty domain":     "activities:\nsessions:\n  - id: s\n",
		"indentless":       "activities:\n- id: a\n- id: b\n",
		"anchors":          "- &x {id: a}\n- *x\n",
		"documents":        "---\n- id: a\n---\n- id: b\n",
		"duplicate key":    "activities:\n  - id: a\nactivities:\n  - id: b\n",
		"scalar":           "just text\n",
		"numeric key":      "1:\n  - id: a\n",
		"nested mapping":   "activities:\n  inner:\n    - id: a\n",
		"error in piece":   big + "- id: [unclosed\n" + yamlDocs(10, ""),
		"bad indentation":  "- id: a\n   x: b\n- id: c\n",
		"crlf":             strings.ReplaceAll(yamlDocs(50, ""), "\n", "\r\n"),
		"no final newline": "- id: a\n- id: b",
		"empty":            "",
		"comment only":     "# nothing\n",
		"complex key":      "? activities\n: - id: a\n",
		"block scalar":     "activities: |\n  text\n- x\n",
		"key and comment":  "activities:   # the list\n  - id: a\n\n  # end\n",
		"quoted over cut":  "- \"abc\n- def\"\n",
		"flow over cut":    "- [a,\n- b]\n",
		"alias far away":   "- &x {id: a}\n" + big + "- *x\n",
		"tab indentation":  "- id: a\n\t- b\n",
		"document start":   "--- \n- id: a\n",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			var want any
			wantErr := yaml.Unmarshal([]byte(src), &want)
			got, err := decodeYAML(context.Background(), src)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("err = %v, the library's %v", err, wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), wantErr.Error()) {
					t.Errorf("err = %v, want the library's %v", err, wantErr)
				}
				return
			}
			if !reflect.DeepEqual(normalize(got), normalize(want)) {
				t.Errorf("decoded in pieces:\n%.300v\nwhole:\n%.300v", normalize(got), normalize(want))
			}
		})
	}
}

// TestYAMLLoadCPU pins that scanning a YAML data file (about 1 MB, a
// mapping of domains) stops using CPU soon after a cancellation wherever
// it lands: 20 runs cancelled at points spread through a whole run each
// return the context's error, the process using at most 100 ms of CPU
// time after the cancellation (canceltest.StopsCPU).
func TestYAMLLoadCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 cancelled loads")
	}
	path := filepath.Join(t.TempDir(), "data.yaml")
	src := "sessions:\n" + yamlDocs(1000, "  ") + "activities:\n" + yamlDocs(6000, "  ")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := (File{Path: path}).Scan(context.Background(), "activities", func([]byte) error { n++; return nil }); err != nil || n != 6000 {
		t.Fatalf("scan: %d documents, %v; want 6000", n, err)
	}
	canceltest.StopsCPU(t, func(ctx context.Context) error {
		return File{Path: path}.Scan(ctx, "activities", func([]byte) error { return nil })
	}, 20, 100*time.Millisecond)
}
