// `load` compiles once; `Program.run` takes arguments as JS values (typed arrays with shapes,
// numbers, BigInts, booleans, value text) and runs without compiling again. Needs web/pkg
// (web/build.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, load, run } from 'ogham';

const program = `
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\row -> map (\\col -> f32.sum (map2 (*) row col)) (transpose b)) a
entry axpy (a: f32) (xs: []f32) (ys: []f32) : []f32 = map2 (\\x y -> a * x + y) xs ys
entry count (k: i64) (xs: []i32) : (i64, [k]i32) = (k, hist (+) 0 k (map i64.i32 xs) (map (const 1) xs))
entry pick (b: bool) (flags: []bool) : []bool = map (\\f -> f != b) flags
entry at (xs: []i32) (i: i64) : i32 = xs[i]
entry half (xs: []f16) : []f16 = map (/ 2) xs
`;

await init();

for (const backend of ['wasm', 'interp']) {
  test(`load once, run many times on ${backend}`, async () => {
    const p = await load(program, { backend });
    assert.equal(p.backend, backend);
    assert.deepEqual(p.entries, ['matmul', 'axpy', 'count', 'pick', 'at', 'half']);
    const a = new Float32Array([1, 2, 3, 4, 5, 6]);
    const b = new Float32Array([7, 8, 9, 10, 11, 12]);
    for (let k = 0; k < 3; k++) {
      const [m] = await p.run('matmul', [{ shape: [2, 3], data: a }, { shape: [3, 2], data: b }]);
      assert.equal(m.type, 'f32');
      assert.deepEqual(m.shape, [2, 2]);
      assert.ok(m.data instanceof Float32Array);
      assert.deepEqual(Array.from(m.data), [58, 64, 139, 154]);
      // The text is computed only when read, and not listed as a key.
      assert.deepEqual(Object.keys(m).sort(), ['data', 'shape', 'type']);
      assert.equal(m.text, '[[58.0f32, 64.0f32],\n [139.0f32, 154.0f32]]');
    }
    // A bare typed array is one-dimensional; a number takes the parameter's type.
    const [y] = await p.run('axpy', [2, new Float32Array([1, 2]), new Float32Array([10, 20])]);
    assert.deepEqual(Array.from(y.data), [12, 24]);
    // Integer data for an i64 parameter, a number or BigInt for an i64 scalar.
    const [k, bins] = await p.run('count', [4, new Int32Array([0, 1, 1, 3])]);
    assert.equal(k.type, 'i64');
    assert.deepEqual(k.shape, []);
    assert.equal(k.data[0], 4n);
    assert.deepEqual(Array.from(bins.data), [1, 2, 0, 1]);
    const [k2] = await p.run('count', [3n, [0, 2]]);
    assert.equal(k2.text, '3i64');
    // Booleans: a scalar, and a Uint8Array of flags with its type named.
    const [f] = await p.run('pick', [true, { type: 'bool', data: new Uint8Array([1, 0, 1]) }]);
    assert.equal(f.type, 'bool');
    assert.deepEqual(Array.from(f.data), [0, 1, 0]);
    // Nested plain arrays and value text work too, and results pass back as arguments.
    const [m2] = await p.run('matmul', [[[1, 0], [0, 1]], '[[3f32, 4f32], [5f32, 6f32]]']);
    assert.deepEqual(Array.from(m2.data), [3, 4, 5, 6]);
    const [m3] = await p.run('matmul', [m2, m2]);
    assert.deepEqual(Array.from(m3.data), [29, 36, 45, 56]);
    const [h] = await p.run('half', [new Float32Array([3, 1])]);
    assert.equal(h.type, 'f16');
    assert.equal(h.text, '[1.5f16, 0.5f16]');
    // A whole argument string, as `run` takes it.
    const [s] = await p.run('at', '[5i32, 6i32] 1i64');
    assert.equal(s.data[0], 6);
    p.free();
    await assert.rejects(p.run('at', [[1], 0]), /freed/);
  });

  test(`argument and run-time errors reject with diagnostics on ${backend}`, async () => {
    const p = await load(program, { backend });
    const rejects = (args, entry, check) => assert.rejects(p.run(entry, args), (e) => {
      assert.ok(e instanceof Error);
      assert.ok(Array.isArray(e.diagnostics) && e.diagnostics.length >= 1);
      check(e);
      return true;
    });
    await rejects([{ shape: [2, 2], data: new Float32Array(3) }, [[1]]], 'matmul', (e) => {
      assert.equal(e.message, 'argument 1 of `matmul`: the shape [2][2] does not hold the 3 elements given');
      assert.equal(e.phase, 'value error');
      assert.equal(e.span, null);
    });
    await rejects([1.5, [1]], 'count', (e) => assert.equal(e.message, 'argument 1 of `count`: 1.5 is not an integer of type `i64`'));
    await rejects([4, new Float32Array([0.5])], 'count', (e) => assert.match(e.message, /^argument 2 of `count`: 0.5 is not an integer of type `i32`/));
    await rejects([new Float32Array(1)], 'matmul', (e) => assert.equal(e.message, '`matmul` takes 2 arguments, but 1 was given'));
    await rejects([new Float32Array(1), new Float32Array(1)], 'matmul', (e) => assert.match(e.message, /argument 1 of `matmul`: expected `\[n\]\[m\]f32`, got `\[1\]f32`/));
    await rejects([{ data: 'x' }], 'at', (e) => assert.match(e.message, /`data` must be a typed array/));
    await rejects([[1], 1, 2], 'nope', (e) => assert.match(e.message, /entry point/));
    await rejects([new Int32Array([1, 2]), 5], 'at', (e) => {
      assert.equal(e.message, 'index [5] out of bounds for array of shape [2]');
      assert.equal(e.phase, 'runtime error');
      assert.equal(e.span.line, 7);
    });
    // The program is still usable after errors.
    const [r] = await p.run('at', [new Int32Array([1, 2]), 1]);
    assert.equal(r.data[0], 2);
  });
}

test('load rejects programs with errors, unknown backends and webgpu in Node', async () => {
  await assert.rejects(load('entry main (x: i32) : i32 = x +'), (e) => {
    assert.equal(e.diagnostics[0].phase, 'parse error');
    assert.equal(e.span.line, 1);
    return true;
  });
  await assert.rejects(load(program, { backend: 'cuda' }), /unknown backend `cuda`/);
  await assert.rejects(load(program, { backend: 'webgpu' }), (e) => {
    assert.equal(e.message, 'WebGPU is not available in this browser/runtime');
    assert.match(e.hint, /`wasm` backend/);
    return true;
  });
});

test('run takes arrays of JS values too', async () => {
  const [r] = await run(program, 'axpy', [0.5, new Float32Array([2]), new Float32Array([1])]);
  assert.deepEqual(Array.from(r.data), [2]);
  // `run`'s results carry their text eagerly, as before.
  assert.equal(r.text, '[2.0f32]');
});

test('large typed arrays go in and out without text', async () => {
  const p = await load(program);
  const n = 1 << 20;
  const xs = new Float32Array(n).fill(1);
  const ys = new Float32Array(n).fill(2);
  const [r] = await p.run('axpy', [3, xs, ys]);
  assert.equal(r.data.length, n);
  assert.equal(r.data[n - 1], 5);
});
