// SYNTAX TEST "source.ts" "PACT selectors are highlighted inside ctx.select strings only"
const a = ctx.select("^seq .cb[role='user'] c@1");
//        ^^^ variable.other.object.pact-host
//            ^^^^^^ entity.name.function.pact-host
//                     ^^^ meta.embedded.selector.pact support.constant.root.pact
//                             ^^^^ meta.embedded.selector.pact entity.other.attribute-name.pact
//                                  ^^^^^^ meta.embedded.selector.pact string.quoted.single.pact
//                                          ^^^ meta.embedded.selector.pact invalid.deprecated.coordinate.pact
const b = db.select("^seq .cb");
//                   ^^^^^^^^ string.quoted.double.ts - meta.embedded.selector.pact
