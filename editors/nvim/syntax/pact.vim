" Syntax highlighting for PACT selectors and queries (.pact).
if exists("b:current_syntax")
  finish
endif

syn keyword pactConstant true false null
syn match   pactComment      "//.*$" contains=pactPragma,@Spell
syn region  pactComment      start="/\*" end="\*/" contains=@Spell
syn match   pactPragma       "//\s*\%(pact\|data\)\s*:.*$"hs=s+2 contained
syn match   pactNumber       "-\?\<\d\+\%(\.\d\+\)\?\>"
syn region  pactString       start=+'+ skip=+\\\\\|\\'+ end=+'+ oneline
syn region  pactString       start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline
syn match   pactNodeType     "[.^][A-Za-z_][A-Za-z0-9_-]*\%(:[A-Za-z_][A-Za-z0-9_-]*\)\?"
syn match   pactId           "#[A-Za-z0-9_:'-][A-Za-z0-9_: '-]*" contains=pactString
syn match   pactControl      "@[A-Za-z0-9_+*-][A-Za-z0-9_.+-]*\%(=[A-Za-z0-9_-]\+\)\?"
syn match   pactPseudo       ":[A-Za-z_][A-Za-z0-9_-]*\ze("
syn match   pactPseudo       ":\%(first\|last\|block\|depth\|nth\)\>"
syn match   pactOperator     "[<>!=]=\?\|??\|\.\.\|[>~+*?]"
syn region  pactAttrs        matchgroup=pactDelimiter start="\[" end="\]" contains=pactAttrName,pactString,pactNumber,pactConstant,pactOperator,pactKeyword
syn region  pactBraces       matchgroup=pactDelimiter start="{" end="}" contains=pactAttrName,pactString,pactNumber,pactConstant,pactOperator,pactKeyword,pactList
syn match   pactAttrName     "\<[A-Za-z_][A-Za-z0-9_.]*\ze\s*\%([<>!=]\|\<in\>\)" contained
syn keyword pactKeyword      in contained
syn region  pactList         matchgroup=pactDelimiter start="\[" end="\]" contained contains=pactString,pactNumber,pactConstant

hi def link pactComment   Comment
hi def link pactPragma    PreProc
hi def link pactConstant  Constant
hi def link pactNumber    Number
hi def link pactString    String
hi def link pactNodeType  Type
hi def link pactId        Identifier
hi def link pactControl   Special
hi def link pactPseudo    Function
hi def link pactOperator  Operator
hi def link pactDelimiter Delimiter
hi def link pactAttrName  Identifier
hi def link pactKeyword   Keyword

let b:current_syntax = "pact"
