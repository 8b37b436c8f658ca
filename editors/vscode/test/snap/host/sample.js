const ids = ctx.select("^ah > .cb:first c@2 *@-");
