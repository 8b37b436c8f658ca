" Filetypes of the ctxql query languages.
autocmd BufRead,BufNewFile *.pact setfiletype pact
autocmd BufRead,BufNewFile *.jql,*.jql.json,*.jql.yaml,*.jql.yml setfiletype jql
autocmd BufRead,BufNewFile *.dl setfiletype datalog
