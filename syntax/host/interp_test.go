package host

import (
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// evalWith runs a real interpreter over the literal texts and returns each
// value, or nil where the interpreter rejects the literal.
func evalWith(t *testing.T, bin string, args []string, lits []string) []*string {
	t.Helper()
	path, err := exec.LookPath(bin)
	if err != nil {
		t.Skipf("%s not installed", bin)
	}
	in, _ := json.Marshal(lits)
	cmd := exec.Command(path, args...)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	var vals []*string
	if err := json.Unmarshal(out, &vals); err != nil || len(vals) != len(lits) {
		t.Fatalf("%s output %q: %v", bin, out, err)
	}
	return vals
}

// randomLiterals builds literal texts from escape-heavy parts.
func randomLiterals(seed uint64, open, close string, parts []string, n int) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	var lits []string
	for range n {
		var b strings.Builder
		b.WriteString(open)
		for range r.IntN(5) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		b.WriteString(close)
		lits = append(lits, b.String())
	}
	return lits
}

// checkAgainst compares Find's decoding with the interpreter's: whenever
// Find decodes a literal, the interpreter must accept it with the same value.
func checkAgainst(t *testing.T, name, tmpl string, lits []string, vals []*string) {
	t.Helper()
	decoded := 0
	for i, lit := range lits {
		got := Find(name, []byte(strings.Replace(tmpl, "%s", lit, 1)), []string{"ctx.select"})
		if len(got) == 0 {
			continue
		}
		decoded++
		if vals[i] == nil {
			t.Errorf("%s: the interpreter rejects it, Find decoded %q", lit, got[0].Value)
		} else if *vals[i] != got[0].Value {
			t.Errorf("%s: the interpreter gives %q, Find %q", lit, *vals[i], got[0].Value)
		}
	}
	if decoded < len(lits)/4 {
		t.Errorf("only %d of %d literals decoded", decoded, len(lits))
	}
}

// TestPythonInterpreter compares the Python decoder with python3.
func TestPythonInterpreter(t *testing.T) {
	parts := []string{"a", "é", `\n`, `\t`, `\\`, `\'`, `\"`, `\x41`, `\xe9`, `\x4`, `\101`, `\7`, `\777`, `\u00e9`,
		`\U0001F600`, `\q`, `\a`, `\0`, `\N{BULLET}`, "\\\n", `"`, "\n"}
	script := `import ast, json, sys, warnings
warnings.simplefilter("ignore")
out = []
for s in json.load(sys.stdin):
    try:
        v = ast.literal_eval(s)
        out.append(v if isinstance(v, str) else None)
    except Exception:
        out.append(None)
print(json.dumps(out))`
	var lits []string
	for i, f := range [][2]string{{"'", "'"}, {`"`, `"`}, {"r'", "'"}, {"u'", "'"}, {"'''", "'''"}, {`r"""`, `"""`}} {
		lits = append(lits, randomLiterals(uint64(i), f[0], f[1], parts, 300)...)
	}
	quoted, want := quotedSamples(t, "a.py")
	vals := evalWith(t, "python3", []string{"-c", script}, append(lits, quoted...))
	checkAgainst(t, "a.py", "x = ctx.select(%s)\n", lits, vals[:len(lits)])
	checkQuoted(t, quoted, want, vals[len(lits):])
}

// TestNodeInterpreter compares the JavaScript decoder with node.
func TestNodeInterpreter(t *testing.T) {
	parts := []string{"a", "é", `\n`, `\t`, `\\`, `\'`, `\"`, "\\`", `\x41`, `\x4`, `\u00e9`, `\u{1F600}`, `\uD83D\uDE00`,
		`\uD83D`, `\q`, `\0`, `\08`, `\1`, "\\\n", "\\\r\n", "\n", `\$`, "$", "\u2028"}
	script := `let d = ""; process.stdin.on("data", c => d += c); process.stdin.on("end", () => {
  const out = JSON.parse(d).map(s => { try { const v = (0, eval)('"use strict"; ' + s); return typeof v === "string" ? v : null } catch (e) { return null } });
  process.stdout.write(JSON.stringify(out));
});`
	var lits []string
	for i, q := range []string{"'", `"`, "`"} {
		lits = append(lits, randomLiterals(uint64(10+i), q, q, parts, 300)...)
	}
	quoted, want := quotedSamples(t, "a.ts")
	quoted2, want2 := quotedSamples(t, "a.js")
	quoted, want = append(quoted, quoted2...), append(want, want2...)
	vals := evalWith(t, "node", []string{"-e", script}, append(lits, quoted...))
	checkAgainst(t, "a.ts", "x = ctx.select(%s);\n", lits, vals[:len(lits)])
	checkQuoted(t, quoted, want, vals[len(lits):])
}

// quotedSamples quotes random valid UTF-8 strings with every sample literal
// kind of the language of name.
func quotedSamples(t *testing.T, name string) (quoted, want []string) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sm := range samples {
		if sm.name != name {
			continue
		}
		base := Find(sm.name, []byte(strings.Replace(sm.tmpl, "%s", sm.lit, 1)), []string{"ctx.select"})[0]
		for range 200 {
			s := strings.ToValidUTF8(randomString(r), "")
			quoted = append(quoted, base.Quote(s))
			want = append(want, s)
		}
	}
	if len(quoted) == 0 {
		t.Fatalf("no samples for %s", name)
	}
	return quoted, want
}

// checkQuoted checks that the interpreter decodes each Quote result to the
// quoted string.
func checkQuoted(t *testing.T, quoted, want []string, vals []*string) {
	t.Helper()
	for i, q := range quoted {
		if vals[i] == nil || *vals[i] != want[i] {
			got := "<rejected>"
			if vals[i] != nil {
				got = *vals[i]
			}
			t.Errorf("Quote(%q) = %s: the interpreter gives %q", want[i], q, got)
		}
	}
}
