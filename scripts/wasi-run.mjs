// Runs a wasm32-wasip1 program (such as a test binary cargo built for that target) under Node's
// WASI, so that tests of the compiler's pure parts also run as WebAssembly:
//   CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings scripts/wasi-run.mjs"
import { readFile } from "node:fs/promises";
import { argv, env, exit } from "node:process";
import { WASI } from "node:wasi";

const [file, ...args] = argv.slice(2);
if (!file) {
  console.error("usage: node scripts/wasi-run.mjs PROGRAM.wasm [ARGS...]");
  exit(2);
}
const wasi = new WASI({
  version: "preview1",
  args: [file, ...args],
  env,
  preopens: { "/": "/" },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
