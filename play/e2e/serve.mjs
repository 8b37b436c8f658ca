// startPlay starts "ctxql play" with the given arguments and returns the
// process and a promise of the address it serves (from its "serving"
// line), rejected if it exits first.
import { spawn } from "node:child_process";

export function startPlay(bin, args, stderr = "inherit") {
  const server = spawn(bin, ["play", ...args], { stdio: ["ignore", "pipe", stderr] });
  const url = new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (b) => {
      out += b;
      const m = /serving (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    server.on("exit", (code) => reject(new Error("ctxql play exited with " + code)));
  });
  return { server, url };
}
