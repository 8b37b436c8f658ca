package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

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

// JSON returns the JSON value Print writes, compact. A value Print encodes
// (a PACT selection, Datalog's tuples) is encoded once, without its
// layout, rather than printed and compacted again: on large results each
// pass over the text costs, most of all in WebAssembly.
func (r *Result) JSON() ([]byte, error) {
	if r.Write == nil && (r.Lang == nil || r.Lang.ID != JQL) && r.Value != nil {
		if m, ok := r.Value.(json.Marshaler); ok && !nilPointer(r.Value) {
			// What the encoder does with m, less its pass over m's (valid,
			// our own, compact) output; output on several lines is
			// compacted.
			b, err := m.MarshalJSON()
			if err != nil || bytes.IndexByte(b, '\n') < 0 {
				return b, err
			}
			var out bytes.Buffer
			err = json.Compact(&out, b)
			return out.Bytes(), err
		}
		return jsonenc.Marshal(r.Value)
	}
	var buf bytes.Buffer
	if err := r.Print(&buf); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("compact result: %w", err)
	}
	return out.Bytes(), nil
}

// nilPointer reports whether v is a nil pointer (which the encoder writes
// as null without calling its MarshalJSON).
func nilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
