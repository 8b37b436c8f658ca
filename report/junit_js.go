//go:build js

package report

import (
	"errors"
	"io"
)

// writeJUnit refuses: the WebAssembly build leaves the JUnit format (and
// the XML encoder under it, a tenth of its size budget) out.
func writeJUnit(io.Writer, []Finding, Options) error {
	return errors.New("the junit format needs the native ctxql binary")
}
