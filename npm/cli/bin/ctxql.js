#!/usr/bin/env node
// The ctxql command of the npm package @ctxql/cli: runs the ctxql binary of
// this platform's package (@ctxql/cli-linux-x64, -darwin-arm64, …, which
// npm installs as an optional dependency) with the arguments given,
// sharing the standard streams, passing signals on and exiting as it
// exits. CTXQL_BINARY names another binary to run instead.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const platformPackage = `@ctxql/cli-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "ctxql.exe" : "ctxql";

function binary() {
	if (process.env.CTXQL_BINARY) return process.env.CTXQL_BINARY;
	let dir;
	try {
		dir = path.dirname(require.resolve(`${platformPackage}/package.json`));
	} catch {
		process.stderr.write(
			`ctxql: the package ${platformPackage} is not installed. It is an optional dependency of @ctxql/cli ` +
				`that npm installs on ${process.platform}/${process.arch}; reinstall without --omit=optional or ` +
				`--no-optional, or install ${platformPackage} next to @ctxql/cli. ` +
				`Platforms with a package: linux, darwin and win32 on x64 and arm64.\n`,
		);
		process.exit(2);
	}
	const bin = path.join(dir, "bin", exe);
	if (process.platform !== "win32") {
		// A package manager that drops the executable bit (some unpack
		// tarballs with 0644) must not stop the command.
		try {
			fs.accessSync(bin, fs.constants.X_OK);
		} catch {
			try {
				fs.chmodSync(bin, 0o755);
			} catch {}
		}
	}
	return bin;
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGWINCH"].filter(
	(s) => process.platform !== "win32" || s === "SIGINT" || s === "SIGTERM",
);
// Ctrl+C at a terminal reaches the whole foreground process group, the
// binary included: the launcher then only waits (a second SIGINT would cut
// the binary's grace period short). A SIGINT sent to the launcher alone,
// with no terminal, is passed on like the other signals.
const terminal = require("node:tty").isatty(0);
const forward = (signal) => {
	if (signal === "SIGINT" && terminal) return;
	try {
		child.kill(signal);
	} catch {}
};
for (const s of forwarded) process.on(s, forward);
child.on("error", (err) => {
	process.stderr.write(`ctxql: cannot run ${err.path ?? "the ctxql binary"}: ${err.message}\n`);
	process.exit(2);
});
child.on("exit", (code, signal) => {
	for (const s of forwarded) process.off(s, forward);
	if (signal) {
		// Die of the same signal, so the caller sees what the binary saw.
		process.kill(process.pid, signal);
		return;
	}
	process.exit(code ?? 1);
});
