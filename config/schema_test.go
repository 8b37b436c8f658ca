package config

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax/pact"

	"github.com/goccy/go-yaml"
)

// jsonSchema is a tiny checker for the subset of JSON Schema 2020-12 that
// schema.json uses: type, properties, additionalProperties, propertyNames,
// items, enum, pattern, minLength, $ref into $defs. Any other keyword fails
// the test, so the schema cannot silently use something unchecked.
type jsonSchema struct {
	root map[string]any
}

var knownKeywords = []string{"$schema", "$id", "title", "description", "type", "properties",
	"additionalProperties", "propertyNames", "items", "enum", "pattern", "minLength", "$ref", "$defs"}

func loadSchema(t *testing.T) *jsonSchema {
	t.Helper()
	data, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema.json is not a draft 2020-12 schema")
	}
	return &jsonSchema{root: root}
}

func (s *jsonSchema) resolve(n map[string]any) map[string]any {
	for i := 0; i < 8; i++ {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		name, _ := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := s.root["$defs"].(map[string]any)
		next, _ := defs[name].(map[string]any)
		if next == nil {
			return map[string]any{"$ref-broken": ref}
		}
		n = next
	}
	return n
}

// validateYAML decodes src as YAML and validates it; a YAML error counts as
// a validation error.
func (s *jsonSchema) validateYAML(t *testing.T, src string) []string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		return []string{"yaml: " + err.Error()}
	}
	var errs []string
	s.validate(s.root, v, "$", &errs)
	return errs
}

func (s *jsonSchema) validate(n map[string]any, v any, at string, errs *[]string) {
	n = s.resolve(n)
	for k := range n {
		if !slices.Contains(knownKeywords, k) {
			*errs = append(*errs, fmt.Sprintf("%s: unsupported schema keyword %q", at, k))
		}
	}
	if ty, ok := n["type"]; ok {
		var types []string
		switch ty := ty.(type) {
		case string:
			types = []string{ty}
		case []any:
			for _, x := range ty {
				types = append(types, fmt.Sprint(x))
			}
		}
		if !slices.Contains(types, typeOf(v)) {
			*errs = append(*errs, fmt.Sprintf("%s: type %s, want %v", at, typeOf(v), types))
			return
		}
	}
	if enum, ok := n["enum"].([]any); ok && !slices.Contains(enum, v) {
		*errs = append(*errs, fmt.Sprintf("%s: %v not in %v", at, v, enum))
	}
	if str, ok := v.(string); ok {
		if ml, ok := n["minLength"].(float64); ok && utf8.RuneCountInString(str) < int(ml) {
			*errs = append(*errs, fmt.Sprintf("%s: shorter than %v", at, ml))
		}
		if pat, ok := n["pattern"].(string); ok && !regexp.MustCompile(pat).MatchString(str) {
			*errs = append(*errs, fmt.Sprintf("%s: %q does not match %s", at, str, pat))
		}
	}
	if list, ok := v.([]any); ok {
		if items, ok := n["items"].(map[string]any); ok {
			for i, it := range list {
				s.validate(items, it, fmt.Sprintf("%s[%d]", at, i), errs)
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := n["properties"].(map[string]any)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if pn, ok := n["propertyNames"].(map[string]any); ok {
				s.validate(pn, k, at+".<key "+k+">", errs)
			}
			if p, ok := props[k].(map[string]any); ok {
				s.validate(p, obj[k], at+"."+k, errs)
				continue
			}
			switch ap := n["additionalProperties"].(type) {
			case bool:
				if !ap {
					*errs = append(*errs, fmt.Sprintf("%s: unknown key %q", at, k))
				}
			case map[string]any:
				s.validate(ap, obj[k], at+"."+k, errs)
			}
		}
	}
}

func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}

// schemaKeys lists the key paths the schema describes, in the notation of the
// parser's key table, with the kind of value each holds.
func (s *jsonSchema) schemaKeys(n map[string]any, path string, out map[string]valueKind) {
	n = s.resolve(n)
	var types []string
	switch ty := n["type"].(type) {
	case string:
		types = []string{ty}
	case []any:
		for _, x := range ty {
			types = append(types, fmt.Sprint(x))
		}
	}
	switch {
	case slices.Contains(types, "object"):
		props, hasProps := n["properties"].(map[string]any)
		ap, hasAP := n["additionalProperties"].(map[string]any)
		if hasProps {
			out[path] = kindObject
			for k, p := range props {
				s.schemaKeys(p.(map[string]any), join(path, k), out)
			}
		}
		if hasAP {
			out[path] = kindMap
			s.schemaKeys(ap, join(path, "*"), out)
		}
	case slices.Contains(types, "array"):
		out[path] = kindList
		if items := s.resolve(n["items"].(map[string]any)); items["type"] != "string" {
			out[path+"[]"] = 99 // a list of something else: never in the parser's table
		}
	case slices.Contains(types, "string"):
		out[path] = kindString
	default:
		out[path] = 98
	}
}

// TestSchemaMatchesParser checks that every key the parser accepts is in
// schema.json with the same kind of value, and vice versa; then that a file
// setting each key to a value of the right kind parses and validates, and
// that renaming any fixed key makes both reject the file.
func TestSchemaMatchesParser(t *testing.T) {
	s := loadSchema(t)
	got := map[string]valueKind{}
	s.schemaKeys(s.root, "", got)
	for k, kind := range keys {
		if gk, ok := got[k]; !ok {
			t.Errorf("parser key %q is not in the schema", k)
		} else if gk != kind {
			t.Errorf("key %q: schema kind %d, parser kind %d", k, gk, kind)
		}
	}
	for k := range got {
		if _, ok := keys[k]; !ok {
			t.Errorf("schema key %q is not accepted by the parser", k)
		}
	}

	// Enumerations agree.
	props := s.root["properties"].(map[string]any)
	sev := s.resolve(s.root["$defs"].(map[string]any)["severity"].(map[string]any))["enum"]
	if fmt.Sprint(sev) != fmt.Sprint(severityNames) {
		t.Errorf("schema severities %v, parser %v", sev, severityNames)
	}
	dia := s.root["$defs"].(map[string]any)["dialect"].(map[string]any)["enum"]
	if fmt.Sprint(dia) != fmt.Sprint(pact.DialectNames()) {
		t.Errorf("schema dialects %v, parser %v", dia, pact.DialectNames())
	}
	ext := props["embedded"].(map[string]any)["properties"].(map[string]any)["extensions"].(map[string]any)["items"].(map[string]any)["enum"]
	if fmt.Sprint(ext) != fmt.Sprint(supportedExtensions) {
		t.Errorf("schema extensions %v, parser %v", ext, supportedExtensions)
	}

	// Every key, set to a sample value, is accepted by both; a misspelled
	// fixed key is rejected by both.
	sample := map[string]string{
		"rules.select": "[PACT]", "rules.ignore": "[PACT001]", "rules.severity.*": "warning",
		"per-file-ignores.*": "[PACT001]", "dialect.default": "v1", "dialect.files.*": "v1",
		"data.*": "d.json", "embedded.calls": "[ctx.select]", "embedded.extensions": "[.ts]", "exclude": "[vendor/]",
	}
	for k, kind := range keys {
		if kind != kindList && kind != kindString {
			continue
		}
		val, ok := sample[k]
		if !ok {
			t.Errorf("no sample value for key %q", k)
			continue
		}
		doc := yamlFor(strings.Split(strings.ReplaceAll(k, "*", "x/**"), "."), val)
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("Parse(%q): %v", doc, err)
		}
		if errs := s.validateYAML(t, doc); len(errs) > 0 {
			t.Errorf("schema rejects %q: %v", doc, errs)
		}
		parts := strings.Split(k, ".")
		for i, p := range parts {
			if p == "*" {
				continue
			}
			bad := slices.Clone(parts)
			bad[i] = p + "x"
			doc := yamlFor(bad, val)
			if _, err := Parse([]byte(doc)); err == nil {
				t.Errorf("Parse accepts the misspelled key in %q", doc)
			}
			if errs := s.validateYAML(t, doc); len(errs) == 0 {
				t.Errorf("schema accepts the misspelled key in %q", doc)
			}
		}
	}
}

// yamlFor builds a nested YAML document setting the key path to val.
func yamlFor(path []string, val string) string {
	var b strings.Builder
	for i, p := range path {
		fmt.Fprintf(&b, "%s%q:", strings.Repeat("  ", i), p)
		if i == len(path)-1 {
			b.WriteString(" " + val)
		}
		b.WriteString("\n")
	}
	return b.String()
}
