package cli

import (
	"fmt"

	"github.com/ctxql/ctxql/lang"
)

// tellLeftAsIs says on stderr which queries of a PACT file fmt left as they
// are written because they are invalid: the formatter never changes whether
// a query is valid (an omitted time prefix written out as "@t0" would make
// "@mode" valid), so it does not touch them.
func tellLeftAsIs(env Env, l *lang.Language, name string, src []byte, d lang.Dialect) {
	file, left := l.LeftAsIs(name, src, d)
	for _, dg := range left {
		fmt.Fprintf(env.Stderr, "%s:%s: invalid query left as it is: %s\n", name, file.Position(dg.Span.Start), dg.Message)
	}
}
