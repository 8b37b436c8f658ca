// pact: v2
// data: ./history.json
@t0 ^seq .mt:depth(1) .mc > .cb[role='assistant'] // last reply
@t-3..@t0 (d1, seg, cont[offset=0], *:block) [age<2]
@history d1..d5 .log.entry { severity="P1", tags in ["a","b"] } [ ttl>=1, sticky ] @order=path @limit=20
#'hero banner' +audit .summary:first ?? .block:summary c@3 *@+ #cb:u2
(d0, seg, 0, end) depth(0) > .cont(status='important' ttl=5) :nth(2) @c42 @* [kind!=tool_call]
(d0, seg, cont[offset=0])? .cb[title='it\'s', done=true, parent=null]
