package jql_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
	"github.com/valyala/fastjson"
)

// BenchmarkDecode compares decoders on generated activity lines: the
// evaluator parses each document that passes the pre-filter, so this is the
// measurement behind the choice of fastjson (parse into a reused arena, read
// only the fields a filter touches).
func BenchmarkDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "a.jsonl")
	generate(b, path, 2000)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.Run("fastjson", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var p fastjson.Parser
		for range b.N {
			for _, l := range lines {
				v, err := p.ParseBytes(l)
				if err != nil || v.GetStringBytes("sessionId") == nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, d := range []struct {
		name string
		fn   func([]byte, any) error
	}{
		{"encoding-json", json.Unmarshal},
		{"goccy-go-json", gojson.Unmarshal},
		{"sonic", sonic.Unmarshal},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				for _, l := range lines {
					var v map[string]any
					if err := d.fn(l, &v); err != nil || v["sessionId"] == nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
