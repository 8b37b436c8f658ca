package pact

import (
	"testing"
)

// v1Examples is every selector in the v1 specification (§3.7, §5, §6, §6.2,
// §6.3, §7.1) that must parse without error.
var v1Examples = []string{
	"@t0 ^seq .mt:depth(1) .mc > .cb[role='assistant']",
	"@t-3..@t0 ^seq .mt .cb[nodeType='cb:summary']",
	".cb:summary",
	"[nodeType='cb:summary']",
	".cb[kind='tool_call']",
	"[ttl>5]",
	"[offset<0]",
	"[cycle=42]",
	"[role='user']",
	"[nodeType='cb:summary']",
	"[id!='abc123']",
	"@t0 ^ah :pre .cb",
	"^seq .mt:depth(1) .mc > .cb[role='assistant']",
	"^root .cb[ttl<=1]",
	"#abc123def",
	"^seq .mt:depth(1,2,3) .cb[role='user']",
	"^seq .mt:depth(1-3) .cb[role='user']",
	"^seq .mt:depth(1-5)",
	"@t-5..-1 ^ah .cb",
	"@* #abc123def",
	"^seq .mt:depth(3)",
	"@t0 ^sys .cb",
	"@t0 ^seq .mt:depth(1)",
	"@t0 ^seq .mt:depth(1,2)",
	"@t0 ^seq .mt:depth(1-2) .mc > .cb",
	"@t0 #cb:u2",
	"@t0 ^seq .mt:depth(1-3) .cb[role='user']",
	"@t0 ^seq .mt:depth(1) > .cb",
	"@t0 .cb[role='assistant']",
	"@t0 ^seq .mt:depth(1-2) .cb[ttl<=1]",
	"@t0 ^seq .mt:depth(3) .cb[role='user']",
	"@t-5:-1 ^ah .cb",
	"@t-1 .cb",
	"@c42 .cb",
	"@c40..@c42 .cb",
	"@t-3:@t0 .cb",
	".cb:first, .cb:last",
	".cb:nth(2)",
	":post",
	":core",
}

// v2Examples is every query in the v2 specification (§2.5, §3, §4, §6.2,
// §6.3, §8, §9) that must parse without error; legacy forms included.
var v2Examples = []string{
	"@t0 .seg",
	"@t-1 .seg",
	"@t0 ^sys .block",
	"@t0 .seg .cont > .block",
	"@t0 #block:u2",
	"@t0 .seg .block",
	"@t-1 .seg .block",
	"@t-2 .seg .block",
	".cont:Message",
	".block:DiffChunk",
	".cont",
	".block",
	".block:summary",
	"depth(0) > .cont[offset=0]",
	"@t0 .seg > .block#summary",
	"depth(-1) > .block#policy",
	"^ah > .cont[offset=0]",
	"^sys > *",
	"depth(-1) > *",
	".block(status='important' ttl=5)",
	".block[status='important'][ttl=5]",
	"@t0 (d1, *:block) [age<2]",
	"@t0..@t-3 (d2, *:block) @mode=latest [depth=2]",
	"(d0, cont[offset=0], *:block)",
	"(d1, seg, cont[offset=0], *:block)",
	"(d2, seg, *:block)",
	"(d0, seg, cont[offset=0], )",
	"(d0, seg, cont[offset=0], end)",
	"(d0, seg, cont[offset=0], +1)",
	"(d0, seg, cont[offset=0], -1)",
	"#'hero banner'",
	"+tag",
	"@t0 ( .seg .cont > .block ) { status='ok' }",
	"@t-3..@t0 ^seq .seg .block[kind='summary']",
	"@t0 (d1,0,1)",
	"@t0 ((d1,0), (d2,0,1))",
	"@t0 d1..d3 .summary",
	".mc > .container > .section > .cta { variant in [\"primary\",\"ghost\"] }",
	".summary .note { author=\"assistant\" } @limit=10",
	"#nav .item",
	"+audit .summary [ ttl>=2 ] @limit=50",
	"(d2,0) .note { lang=\"en\" }",
	"{ nodeType=\"block\", type=\"summary\", author=\"user\" }",
	"d0 .config { key=\"theme\" }",
	"@history d1..d5 .log.entry { severity=\"P1\" } [ ttl>=1 ] @order=path @limit=20",
	"@t-1..@t-3 .seg",
	"@t-3:@t0 .seg",
	"@t0..@t-* .seg",
	"@t+1 .seg",
	"@t0 .seg @*",
	"(d1, seg)? ?? (d2, seg)",
	".block [ephemeral]",
	".block [sticky]",
	".block { tag = [\"a\",\"b\"] }",
	".block { title ~ \"hero\" }",
	".block { ttl=3 }",
	"(d1, c@3)",
	"(d1, *@+)",
	"(d1, *@-)",
	".mt:depth(1) .block",
	"d-1 > .block",
	"d1..8 .summary",
}

func TestSpecExamplesParse(t *testing.T) {
	for _, tc := range []struct {
		d   Dialect
		src []string
	}{{V1, v1Examples}, {V2, v2Examples}} {
		for _, s := range tc.src {
			q, ds := ParseQuery(s, tc.d)
			if len(ds) > 0 || q.Bad {
				t.Errorf("%s %q: %v\n%s", tc.d, s, ds, Dump(q))
			}
		}
	}
}
