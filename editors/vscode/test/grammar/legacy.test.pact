// SYNTAX TEST "source.pact" "v1-era tokens are scoped as deprecated, v2 tokens are not"
  (d1, cont[offset=0]) c@3 *@+ .block:summary .mt:depth(1) *@-
//     ^^^^^^^^^^^^^^ invalid.deprecated.cont-offset.pact
//                     ^^^ invalid.deprecated.coordinate.pact
//                         ^^^ invalid.deprecated.offset-wildcard.pact
//                                                         ^^^ invalid.deprecated.offset-wildcard.pact
//                             ^^^^^^^^^^^^^^ invalid.deprecated.block-type.pact
//                                               ^^^^^^^ invalid.deprecated.depth-pseudo.pact
//                                                      ^^ invalid.deprecated.depth-pseudo.pact
  @t0 (d1, seg, 0) .summary .cb:summary cont
//^^^ constant.other.snapshot.pact
//     ^^ constant.numeric.depth.pact
//         ^^^ support.type.structural.pact
//                  ^^^^^^^ entity.name.type.pact - invalid.deprecated.block-type.pact
//                           ^^^^^^^^^^ entity.name.type.pact - invalid.deprecated.block-type.pact
