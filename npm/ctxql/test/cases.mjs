// runCases runs the differential cases (the format internal/pkgtest
// writes: {id, op, language, text, options, data, dataName}) through a
// loaded @ctxql/ctxql and returns {id: {result} | {error}}. Node
// (runcases.mjs) and Chromium (browser.mjs) both run it.
export function runCases(ctxql, cases) {
  const outputs = {};
  for (const c of cases) {
    try {
      outputs[c.id] = { result: runCase(ctxql, c) };
    } catch (e) {
      if (!(e instanceof ctxql.CtxqlError)) throw e;
      const error = { code: e.code, message: e.message };
      if (e.range !== undefined) error.range = e.range;
      outputs[c.id] = { error };
    }
  }
  return outputs;
}

function runCase(ctxql, c) {
  const options = c.options ?? {};
  switch (c.op) {
    case "check":
      return ctxql.check(c.text, { language: c.language, ...options });
    case "format":
      return ctxql.format(c.text, { language: c.language, ...options });
    case "migrate":
      return ctxql.migrate(c.text, options);
    case "evaluate": {
      const ds = ctxql.load(c.language, c.data, { name: c.dataName });
      try {
        return ds.evaluate(c.text, options);
      } finally {
        ds.release();
      }
    }
  }
  throw new Error(`unknown op ${c.op}`);
}
