package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzIDScanner checks the id scanner against a JSON decoder: fed whole or
// in two pieces it finds the same id; an id it finds is the object's own;
// and in an object without escapes whose one "id" is a valid id, it finds
// it.
func FuzzIDScanner(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"id" : "a\"b" , "x":[1,{"id":2}]}`, `{"a":{"id":3},"id":4}`,
		`{"id":1,"id":2}`, `{"id":1} x`, `[{"id":1}]`, `{"id":"\ud83d"}`, `{"params":{"q":"\ud83d"},"id":7}`,
		`{"id":` + strings.Repeat("9", 70) + `}`, `{"id":1e3}`, `{"id":null}`, ` {"id":-5}` + "\r\n",
		`{"x":"` + strings.Repeat("[", 200) + `","id":"s"}`,
	} {
		f.Add([]byte(s), 5)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		whole := recoverID(data)
		if cut < 0 {
			cut = -cut
		}
		cut %= len(data) + 1
		var s idScanner
		s.Feed(data[:cut])
		s.Feed(data[cut:])
		if got := s.ID(); !bytes.Equal(got, whole) {
			t.Fatalf("in two pieces at %d: %s, whole: %s", cut, got, whole)
		}
		var fields map[string]json.RawMessage
		dec := jsontext.NewDecoder(bytes.NewReader(data))
		v, err := dec.ReadValue()
		_, trailing := dec.ReadToken()
		valid := err == nil && trailing != nil && json.Unmarshal(v, &fields) == nil
		if whole != nil && valid && !bytes.Equal(compact(fields["id"]), compact(whole)) {
			t.Fatalf("found id %s, the object's is %s", whole, fields["id"])
		}
		if raw, ok := fields["id"]; valid && ok && !bytes.ContainsRune(data, '\\') && validID(compact(raw)) && whole == nil {
			t.Fatalf("missed id %s", raw)
		}
	})
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
