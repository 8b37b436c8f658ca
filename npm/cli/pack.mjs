// Builds the npm packages of the ctxql command and packs them with npm pack:
//
//   node npm/cli/pack.mjs --version v0.1.0 --out dist linux/amd64=path/to/ctxql ...
//
// For each OS/ARCH=BINARY pair it writes @ctxql/cli-OS-CPU (npm's names:
// win32 for windows, x64 for amd64), with os and cpu fields so npm
// installs it only there and the binary in bin/; then @ctxql/cli, the
// launcher, whose optionalDependencies name the package of every platform
// ctxql ships to at this exact version. Prints the tarballs' file names
// (ctxql-cli-0.1.0.tgz, ctxql-cli-linux-x64-0.1.0.tgz, …).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const platforms = ["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"];
const npmOS = { linux: "linux", darwin: "darwin", windows: "win32" };
const npmCPU = { amd64: "x64", arm64: "arm64" };
const repository = { type: "git", url: "git+https://github.com/ctxql/ctxql.git" };

function usage(msg) {
	process.stderr.write(`pack.mjs: ${msg}\nusage: node npm/cli/pack.mjs --version vX.Y.Z [--out DIR] OS/ARCH=BINARY...\n`);
	process.exit(2);
}

let version, out = "dist";
const targets = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
	if (args[i] === "--version") version = args[++i];
	else if (args[i] === "--out") out = args[++i];
	else if (args[i].includes("=")) targets.push(args[i].split(/=(.*)/s, 2));
	else usage(`unknown argument ${args[i]}`);
}
if (!version || !/^v\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(version)) usage("--version vX.Y.Z is required");
version = version.slice(1);
if (targets.length === 0) usage("no OS/ARCH=BINARY given");
out = path.resolve(out);
fs.mkdirSync(out, { recursive: true });

const platformName = (target) => {
	const [goos, goarch] = target.split("/");
	return `${npmOS[goos]}-${npmCPU[goarch]}`;
};
const work = fs.mkdtempSync(path.join(os.tmpdir(), "ctxql-npm-"));
const writeJSON = (file, v) => fs.writeFileSync(file, JSON.stringify(v, null, 2) + "\n");
const made = [];
const pack = (dir) => {
	const r = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
	made.push(r[0].filename);
};

try {
	for (const [target, binary] of targets) {
		if (!platforms.includes(target)) usage(`unknown target ${target} (known: ${platforms.join(", ")})`);
		const name = platformName(target);
		const [os_, cpu] = name.split("-");
		const dir = path.join(work, name);
		fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
		const exe = os_ === "win32" ? "ctxql.exe" : "ctxql";
		fs.copyFileSync(binary, path.join(dir, "bin", exe));
		fs.chmodSync(path.join(dir, "bin", exe), 0o755);
		writeJSON(path.join(dir, "package.json"), {
			name: `@ctxql/cli-${name}`,
			version,
			description: `The ctxql binary for ${os_} ${cpu}, run by @ctxql/cli`,
			repository,
			os: [os_],
			cpu: [cpu],
			files: ["bin/"],
			preferUnplugged: true,
		});
		fs.writeFileSync(path.join(dir, "README.md"), `# @ctxql/cli-${name}\n\nThe \`ctxql\` binary for ${os_} on ${cpu}. Install [@ctxql/cli](https://www.npmjs.com/package/@ctxql/cli), which runs it.\n`);
		pack(dir);
	}

	const dir = path.join(work, "cli");
	fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
	fs.copyFileSync(path.join(here, "bin", "ctxql.js"), path.join(dir, "bin", "ctxql.js"));
	fs.chmodSync(path.join(dir, "bin", "ctxql.js"), 0o755);
	fs.copyFileSync(path.join(here, "README.md"), path.join(dir, "README.md"));
	writeJSON(path.join(dir, "package.json"), {
		name: "@ctxql/cli",
		version,
		description: "ctxql: check, format, migrate and evaluate PACT, JQL and Datalog queries, and serve them over MCP",
		repository,
		bin: { ctxql: "bin/ctxql.js" },
		files: ["bin/"],
		engines: { node: ">=16" },
		optionalDependencies: Object.fromEntries(platforms.map((t) => [`@ctxql/cli-${platformName(t)}`, version])),
	});
	pack(dir);
} finally {
	fs.rmSync(work, { recursive: true, force: true });
}
for (const f of made) console.log(f);
