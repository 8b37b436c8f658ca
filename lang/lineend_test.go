package lang

import (
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax/pact"
)

// TestFormatKeepsCRLF formats a file of every language with a formatter
// twice, once with LF and once with CRLF line ends: the CRLF file's output
// is the LF file's with CRLF line ends.
func TestFormatKeepsCRLF(t *testing.T) {
	srcs := map[ID]struct{ name, src string }{
		PACT:    {"q.pact", ".mt   .cb\n// note\n\n\n.cb[ttl<=1]\n"},
		JQL:     {"q.jql", "// recent\n{\"from\":\"activities\",  \"limit\": 3}\n"},
		Datalog: {"q.dl", "// rules\nq(x) <--   p(x).\n"},
	}
	for _, l := range All() {
		if !l.CanFormat() {
			continue
		}
		s, ok := srcs[l.ID]
		if !ok {
			t.Errorf("no sample for %s, which formats", l.ID)
			continue
		}
		lf, err := l.Format(s.name, []byte(s.src), pact.DialectUnset)
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Format(s.name, []byte(strings.ReplaceAll(s.src, "\n", "\r\n")), pact.DialectUnset)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.ReplaceAll(string(lf), "\n", "\r\n"); string(got) != want {
			t.Errorf("%s: CRLF source formatted to %q, want %q", l.ID, got, want)
		}
	}
}
