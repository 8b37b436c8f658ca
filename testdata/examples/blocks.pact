// pact: v1
// data: ./context.json
^seq .mt:depth(1-2) .cb[ttl<=1]
.mt > .cb[role='user']
^seq .mt .cb[kind='tool_use']
