package jql

import (
	"runtime"
	"strings"
	"testing"
)

// TestDeepYAMLFailsEarly: YAML nested far beyond the depth limit, whether
// by flow mappings, flow sequences, compact block sequences or indentation,
// is rejected before the YAML parser builds it, with little memory.
func TestDeepYAMLFailsEarly(t *testing.T) {
	var ind strings.Builder
	ind.WriteString("from: activities\nwhere:\n")
	for i := 1; i < 700; i++ {
		ind.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	ind.WriteString(strings.Repeat(" ", 700) + "b: 1\n")
	for name, src := range map[string]string{
		"flow mappings":   "from: activities\nwhere: " + strings.Repeat("{a: ", 50_000) + "1" + strings.Repeat("}", 50_000) + "\n",
		"flow sequences":  "from: activities\nwhere: " + strings.Repeat("[", 50_000) + strings.Repeat("]", 50_000) + "\n",
		"block sequences": "from: activities\nselect:\n" + strings.Repeat("- ", 100_000) + "x\n",
		"indentation":     ind.String(),
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, ds := ParseQuery(src)
		runtime.ReadMemStats(&m1)
		if len(ds) != 1 || !strings.Contains(ds[0].Message, "nesting too deep (more than 200 levels)") {
			t.Errorf("%s (%d bytes): got %v", name, len(src), ds)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 128<<20 {
			t.Errorf("%s (%d bytes): allocated %d MB", name, len(src), alloc>>20)
		}
	}
}

// TestLongYAMLLines: 100,000 select paths on one YAML line or one per line
// parse completely (positions on a long line are found in one walk).
func TestLongYAMLLines(t *testing.T) {
	var flow, block strings.Builder
	flow.WriteString("from: activities\nselect: [")
	block.WriteString("from: activities\nselect:\n")
	for i := range 100_000 {
		if i > 0 {
			flow.WriteString(", ")
		}
		flow.WriteString("p" + strings.Repeat("é", i%3))
		block.WriteString("- p\n")
	}
	flow.WriteString(", last]\n")
	for name, src := range map[string]string{"flow": flow.String(), "block": block.String()} {
		q, ds := ParseQuery(src)
		if len(ds) != 0 || len(q.Select) < 100_000 {
			t.Fatalf("%s: %d select items, diagnostics %v", name, len(q.Select), ds)
		}
		if name == "flow" {
			last := q.Select[len(q.Select)-1]
			if got := src[last.Sp.Start:last.Sp.End]; got != "last" {
				t.Errorf("span of the last item covers %q", got)
			}
		}
	}
}
