" Syntax highlighting for JQL queries (.jql, .jql.json, .jql.yaml): JSON
" (or YAML) with comments, the JQL keys and operators picked out.
if exists("b:current_syntax")
  finish
endif

syn match   jqlComment   "//.*$" contains=jqlPragma,@Spell
syn match   jqlComment   "^\s*#.*$" contains=jqlPragma,@Spell
syn region  jqlComment   start="/\*" end="\*/" contains=@Spell
syn match   jqlPragma    "\%(//\|#\)\s*data\s*:.*$"hs=s+1 contained
syn region  jqlString    start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline contains=jqlEscape
syn region  jqlString    start=+'+ skip=+\\\\\|\\'+ end=+'+ oneline contains=jqlEscape
syn match   jqlEscape    +\\\%(["'\\/bfnrt]\|u\x\{4}\)+ contained
syn match   jqlKey       +"[^"]*"\ze\s*:+ contains=jqlKeyword,jqlOperatorKey
syn match   jqlKey       +\<[A-Za-z_][A-Za-z0-9_.]*\ze\s*:+ contains=jqlKeyword,jqlOperatorKey
syn match   jqlKeyword   +\<\%(from\|select\|where\|order\|orderBy\|limit\|startAfter\|offset\)\>+ contained
syn match   jqlOperatorKey +\<\%(eq\|neq\|gt\|gte\|lt\|lte\|in\|nin\|exists\|contains\|startsWith\|endsWith\|matches\|and\|or\|not\)\>+ contained
syn match   jqlNumber    "-\?\<\d\+\%(\.\d\+\)\?\%([eE][+-]\?\d\+\)\?\>"
syn keyword jqlConstant  true false null
syn match   jqlDelimiter "[{}\[\],:]"

hi def link jqlComment     Comment
hi def link jqlPragma      PreProc
hi def link jqlString      String
hi def link jqlEscape      SpecialChar
hi def link jqlKey         Identifier
hi def link jqlKeyword     Keyword
hi def link jqlOperatorKey Operator
hi def link jqlNumber      Number
hi def link jqlConstant    Constant
hi def link jqlDelimiter   Delimiter

let b:current_syntax = "jql"
