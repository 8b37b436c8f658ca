package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
)

// WriteResult writes a valid query's result as `ctxql eval` prints it: a
// PACT query's ids as one JSON line (a snapshot range's object indented),
// JQL's documents as a JSON array with one document per line, Datalog's
// tuples or relations as one JSON line (streamed when the result was
// asked with Query.Stream).
func WriteResult(w io.Writer, res *lang.Result) error {
	switch {
	case res.Lang != nil && res.Lang.ID == lang.JQL:
		return writeJSONLines(w, res.Items)
	case res.Write != nil:
		if err := res.Write(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	var b []byte
	var err error
	if res.Range {
		b, err = jsonenc.MarshalIndent(res.Value, "", "  ")
	} else {
		b, err = jsonenc.Marshal(res.Value)
	}
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeJSONLines writes JSON documents as a JSON array, one document per
// line.
func writeJSONLines(w io.Writer, items lang.Items) error {
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
