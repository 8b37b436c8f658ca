" Syntax highlighting for Datalog programs in Ascent syntax (.dl).
if exists("b:current_syntax")
  finish
endif

syn match   dlComment    "//.*$" contains=dlPragma,@Spell
syn region  dlComment    start="/\*" end="\*/" contains=@Spell
syn match   dlPragma     "//\s*data\s*:.*$"hs=s+2 contained
syn keyword dlKeyword    relation lattice if let agg for in
syn keyword dlConstant   true false
syn match   dlNumber     "-\?\<\d\+\%(\.\d\+\)\?\>"
syn region  dlString     start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline contains=dlEscape
syn match   dlEscape     +\\.+ contained
syn match   dlType       "\<[A-Z][A-Za-z0-9_]*\>"
syn match   dlRelation   "\<[a-z_][A-Za-z0-9_]*\ze\s*("
syn match   dlWildcard   "\<_\>"
syn match   dlOperator   "<--\|:-\|[!=<>]=\?\|[+*/%-]"
syn match   dlDelimiter  "[(),;.]"

hi def link dlComment   Comment
hi def link dlPragma    PreProc
hi def link dlKeyword   Keyword
hi def link dlConstant  Constant
hi def link dlNumber    Number
hi def link dlString    String
hi def link dlEscape    SpecialChar
hi def link dlType      Type
hi def link dlRelation  Function
hi def link dlWildcard  Special
hi def link dlOperator  Operator
hi def link dlDelimiter Delimiter

let b:current_syntax = "datalog"
