//! The same module runs in Node (WebAssembly.instantiate, through runtime/js/ogham.mjs) and gives
//! the same results as under wasmtime. Skipped, with a note, where `node` is not installed.

use std::path::Path;
use std::process::Command;

use ogham::backend::wasm;

const PROGRAM: &str = "
entry dot (xs: []f32) (ys: []f32) : f32 = reduce (+) 0 (map2 (*) xs ys)
entry scale (a: f32) (xs: []f32) : []f32 = map (*a) xs
entry bad (xs: []i32) (i: i64) : i32 = xs[i]
";

#[test]
fn a_module_runs_in_node() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node is not installed: skipping");
        return;
    }
    let c = ogham::driver::compile(PROGRAM).unwrap();
    let m = wasm::compile(&c.ir, &wasm::Options::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("ogham-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("prog.wasm"), &m.bytes).unwrap();
    std::fs::write(dir.join("prog.json"), m.manifest.to_json()).unwrap();
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/ogham.mjs");
    let script = format!(
        r#"
import {{ readFileSync }} from 'node:fs';
import {{ load }} from '{}';
const bytes = readFileSync('{}');
if (!WebAssembly.validate(bytes)) throw new Error('invalid module');
const p = await load(bytes, JSON.parse(readFileSync('{}', 'utf8')));
const xs = {{ shape: [4], data: new Float32Array([1, 2, 3, 4]) }};
console.log(p.run('dot', [xs, xs])[0]);
console.log(Array.from(p.run('scale', [2, xs])[0].data).join(' '));
try {{ p.run('bad', [{{ shape: [2], data: new Int32Array([1, 2]) }}, 5n]); }} catch (e) {{ console.log(e.message); }}
"#,
        lib.display(),
        dir.join("prog.wasm").display(),
        dir.join("prog.json").display()
    );
    let js = dir.join("t.mjs");
    std::fs::write(&js, script).unwrap();
    let out = Command::new("node").arg(&js).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["30", "2 4 6 8", "index [5] out of bounds for array of shape [2]"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
