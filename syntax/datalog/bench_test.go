package datalog

import (
	"fmt"
	"strings"
	"testing"
)

// benchProgram returns a program of about size bytes: a declared edge
// relation and rules joining it, every twentieth one written without
// spaces, the shape of a large generated rule file.
func benchProgram(size int) string {
	var b strings.Builder
	b.WriteString("relation edge(i32, i32);\n")
	for i := 0; b.Len() < size; i++ {
		if i%20 == 0 {
			fmt.Fprintf(&b, "p%d(x,y)<--edge(x,y);\n", i)
			continue
		}
		fmt.Fprintf(&b, "p%d(x, z) <-- edge(x, y), edge(y, z), if x != z;\n", i)
	}
	return b.String()
}

// BenchmarkParseCheck parses and checks a generated 256 KB program and
// reports the front end's throughput in MB/s.
func BenchmarkParseCheck(b *testing.B) {
	src := benchProgram(256 << 10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		prog := ParseProgram("bench.dl", src)
		info := Check(prog, nil)
		if len(prog.Diagnostics)+len(info.Diagnostics) != 0 {
			b.Fatalf("diagnostics: %v %v", prog.Diagnostics, info.Diagnostics)
		}
	}
}
