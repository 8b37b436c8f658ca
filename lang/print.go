package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Print writes a valid query's result as `ctxql eval` prints it, the one
// printer of results the command line and the library share: a PACT
// query's ids as one JSON line (a snapshot range's object indented), JQL's
// documents as a JSON array with one document per line, Datalog's tuples
// or relations as one JSON line (streamed when the result was asked with
// Query.Stream).
func (r *Result) Print(w io.Writer) error {
	switch {
	case r.Lang != nil && r.Lang.ID == JQL:
		return printDocuments(w, r.Items)
	case r.Write != nil:
		if err := r.Write(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	var b []byte
	var err error
	if r.Range {
		b, err = jsonenc.MarshalIndent(r.Value, "", "  ")
	} else {
		b, err = jsonenc.Marshal(r.Value)
	}
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printDocuments writes JSON documents as a JSON array, one document per
// line.
func printDocuments(w io.Writer, items Items) error {
	var b bytes.Buffer
	b.WriteString("[")
	n := 0
	if items != nil {
		n = items.Len()
	}
	for i := range n {
		d := items.At(i)
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		raw, ok := d.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(d); err != nil {
				return fmt.Errorf("encode result: %w", err)
			}
		}
		b.Write(raw)
	}
	if n > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := w.Write(b.Bytes())
	return err
}
