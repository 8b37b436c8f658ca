package jql

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanJSONStream checks that the documents the stream reader hands on
// are those encoding/json finds, byte for byte, in arrays and in the
// combined form with other members before and after, and that broken
// structure is a DataError.
func TestScanJSONStream(t *testing.T) {
	docs := []string{
		`{"id":"a1","s":"q\"uote\\\\","n":[1,{"b":[]}]}`,
		`{"id":"a2","s":"]}[{,\\\"","e":{}}`,
		`{ "id" : "a3" , "x" : -1.5e3 }`,
		`"text"`, `12`, `true`, `null`, `[]`,
	}
	arr := "[\n " + strings.Join(docs, " ,\n\t") + " \r\n]"
	cases := []struct {
		in      string
		wrapped bool
		want    []string
	}{
		{arr, false, docs},
		{`[]`, false, nil},
		{` [ ] `, false, nil},
		{`{"sessions": [{"id":"s"}], "activities": ` + arr + `}`, true, docs},
		{`{"activities": ` + arr + `, "meta": {"a": [1, "]"]}, "x": "y"}`, true, docs},
		{`{"\u0061ctivities": [{"id":"z"}]}`, true, []string{`{"id":"z"}`}},
		{`{"sessions": [{"id":"s"}]}`, true, nil},
	}
	for _, c := range cases {
		var got []string
		err := scanJSONStream(context.Background(), bufio.NewReaderSize(strings.NewReader(c.in), 16), "activities", func(raw []byte) error {
			got = append(got, string(raw))
			return nil
		}, c.wrapped)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: documents (-want +got):\n%s", c.in, diff)
		}
		for _, d := range got {
			if !json.Valid([]byte(d)) {
				t.Errorf("%s: document %s is not one JSON value", c.in, d)
			}
		}
	}
	for _, in := range []string{`[{"id":"a"}`, `[{"id":"a"} {"id":"b"}]`, `{"activities" [1]}`, `{"activities": [1], }`, `[1,`, `["open`} {
		wrapped := strings.HasPrefix(in, "{")
		err := scanJSONStream(context.Background(), bufio.NewReader(strings.NewReader(in)), "activities", func([]byte) error { return nil }, wrapped)
		var de *DataError
		if !errors.As(err, &de) {
			t.Errorf("%s: got %v, want a DataError", in, err)
		}
	}
	if !isWrapped([]byte(`{"activities": [`)) || isWrapped([]byte(`{"activities": 1}`)) || isWrapped([]byte(`{"id": [1]}`)) {
		t.Error("isWrapped")
	}
}
