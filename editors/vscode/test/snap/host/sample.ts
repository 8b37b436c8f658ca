const ids = await ctx.select("@t0 ^seq .mt .cb[role='assistant'] cont[offset=0]");
const v2 = ctx.select('@history d1..d3 .summary { author="user" } @limit=10');
const t = ctx.select(`(d1, seg, *:block) .block:summary`);
// ctx.select("not a selector: in a comment")
const plain = other.select("@t0 .cb");
