package files

import (
	"bytes"
	"testing"
)

// TestAdviseHuge checks that the advice leaves a buffer's bytes alone and
// accepts any slice: empty, small, unaligned, whole huge pages or not.
func TestAdviseHuge(t *testing.T) {
	buf := make([]byte, 9*hugePage+123)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := bytes.Clone(buf)
	for _, r := range [][2]int{{0, 0}, {0, 10}, {1, hugePage}, {3, 2*hugePage + 1}, {4097, 5*hugePage + 9}, {0, len(buf)}, {hugePage - 1, len(buf)}} {
		adviseHuge(buf[r[0]:r[1]])
	}
	if !bytes.Equal(buf, want) {
		t.Fatal("adviseHuge changed the buffer's bytes")
	}
	for i := range buf {
		buf[i]++
	}
	for i := range buf {
		if buf[i] != want[i]+1 {
			t.Fatalf("byte %d: %d after the advice and a write, want %d", i, buf[i], want[i]+1)
		}
	}
}
