package jql

import (
	"testing"

	"github.com/ctxql/ctxql/internal/jsonenc"
)

// TestAppendJSONString: the plain strings the projection writes itself
// and the others it leaves to the encoder come out as jsonenc writes them.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "id", "artifacts", "a b~\x7f", "quote\"", `back\slash`, "tab\t", "nl\n", "\x00", "<&>", "é", "\u2028", "\xff"} {
		want, err := jsonenc.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("appendJSONString(%q) = %s, want x%s", s, got, want)
		}
	}
}
