package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMarshal(t *testing.T) {
	b, err := Marshal(map[string]any{"q": "ttl<=2 && a>b", "n": []int{1}})
	if err != nil || string(b) != `{"n":[1],"q":"ttl<=2 && a>b"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	b, err = MarshalIndent([]string{"<"}, "", "  ")
	if err != nil || string(b) != "[\n  \"<\"\n]" {
		t.Errorf("MarshalIndent = %q, %v", b, err)
	}
}

// TestUnescape: the three escapes become characters inside strings only; an
// escaped backslash followed by "u003c" is text and stays; the result
// decodes to the same value.
func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`{"a\u003cb":"x\u003E\u0026"}`:    `{"a<b":"x>&"}`,
		`["\\u003c","\\\u003c","\u0027"]`: `["\\u003c","\\<","\u0027"]`,
		`["\"\u003c"]`:                    `["\"<"]`,
		`[1,2]`:                           `[1,2]`,
	} {
		got := Unescape([]byte(in))
		if string(got) != want {
			t.Errorf("Unescape(%s) = %s, want %s", in, got, want)
		}
		var a, b any
		if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal(got, &b) != nil {
			t.Fatalf("invalid JSON: %s → %s", in, got)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("Unescape(%s) changed the value: %s", in, got)
		}
	}
}

func FuzzUnescape(f *testing.F) {
	f.Add(`{"a\u003cb":["\\u003c",1]}`)
	f.Fuzz(func(t *testing.T, s string) {
		var a any
		if json.Unmarshal([]byte(s), &a) != nil {
			return
		}
		var b any
		got := Unescape([]byte(s))
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("Unescape(%q) = %q: %v", s, got, err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("Unescape(%q) = %q changed the value", s, got)
		}
	})
}

// TestMarshalStrings: a list of strings, written without the encoder,
// comes out as the encoder writes it, whatever the strings hold.
func TestMarshalStrings(t *testing.T) {
	for _, ss := range [][]string{{}, {""}, {"cb:1", "mc:2"}, {"<&>", "quote\"", `back\slash`, "tab\t", "\x00\x1f", "é", "\u2028", "\xff", "\x7f"}} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ss); err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(ss)
		if err != nil || string(got)+"\n" != want.String() {
			t.Errorf("Marshal(%q) = %s, %v; want %s", ss, got, err, want.String())
		}
	}
	if got, err := Marshal([]string(nil)); err != nil || string(got) != "null" {
		t.Errorf("Marshal(nil []string) = %s, %v", got, err)
	}
}

// TestPlainStrings checks PlainStrings against Marshal on lists of
// printable ASCII strings without quotes and backslashes.
func TestPlainStrings(t *testing.T) {
	for _, ss := range [][]string{
		{},
		{""},
		{"a"},
		{"cb:1:2:3", "", "<&>", " ~!#$%'()*+,-./:;=?@[]^_`{|}"},
		lengths(40),
	} {
		want, err := Marshal(ss)
		if err != nil {
			t.Fatal(err)
		}
		if got := PlainStrings(ss); string(got) != string(want) {
			t.Errorf("PlainStrings(%q) = %s, want %s", ss, got, want)
		}
	}
}

// lengths is a list of strings of each length up to n, each of its own
// bytes (the copy a word at a time must not mix them up).
func lengths(n int) []string {
	var ss []string
	for l := 0; l <= n; l++ {
		b := make([]byte, l)
		for i := range b {
			b[i] = byte('!' + (l*7+i)%90)
			if b[i] == '"' || b[i] == '\\' {
				b[i] = 'x'
			}
		}
		ss = append(ss, string(b))
	}
	return ss
}
