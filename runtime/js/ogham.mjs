// Runs modules compiled by Ogham's wasm backend with WebAssembly.instantiate (browsers, Node).
// `manifest` is the JSON from `ogham::backend::wasm::Manifest::to_json`. Arrays go in and come
// out as { shape, data } with typed-array data; scalars as numbers, booleans or BigInts (64-bit).

const SIZES = { bool: 1, i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, f16: 2, f32: 4, i64: 8, u64: 8, f64: 8 };
const ARRAYS = {
  bool: Uint8Array, i8: Int8Array, u8: Uint8Array, i16: Int16Array, u16: Uint16Array,
  i32: Int32Array, u32: Uint32Array, f32: Float32Array, i64: BigInt64Array, u64: BigUint64Array,
  f64: Float64Array,
};
const ERR_ARGS = 64;

function mathImports() {
  const m = {};
  const f32 = Math.fround;
  const fns = {
    exp: Math.exp, log: Math.log, log2: Math.log2, log10: Math.log10, sin: Math.sin, cos: Math.cos,
    tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan, sinh: Math.sinh,
    cosh: Math.cosh, tanh: Math.tanh, cbrt: Math.cbrt, log1p: Math.log1p, asinh: Math.asinh,
    acosh: Math.acosh, atanh: Math.atanh, atan2: Math.atan2, hypot: Math.hypot, pow: Math.pow,
    fmod: (x, y) => x % y,
    // JS has no fused multiply-add: this rounds twice.
    fma: (a, b, c) => a * b + c,
  };
  for (const [name, f] of Object.entries(fns)) {
    m[`f64.${name}`] = f;
    m[`f32.${name}`] = (...xs) => f32(f(...xs));
  }
  m['f64.to_i64_wrapping'] = (x) =>
    !Number.isFinite(x) || Math.abs(x) >= 1.7014118346046923e38 ? 0n : BigInt.asIntN(64, BigInt(Math.trunc(x)));
  // f16 values live in f32; these convert with round-to-nearest-even.
  const f32buf = new Float32Array(1);
  const u32buf = new Uint32Array(f32buf.buffer);
  const toBits = (x) => {
    f32buf[0] = x;
    const b = u32buf[0];
    const sign = (b >>> 16) & 0x8000;
    const exp = (b >>> 23) & 0xff;
    let man = b & 0x7fffff;
    if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
    let e = exp - 127 + 15;
    if (e >= 0x1f) return sign | 0x7c00;
    if (e <= 0) {
      if (e < -10) return sign;
      man |= 0x800000;
      const shift = 14 - e;
      let h = man >>> shift;
      const rem = man & ((1 << shift) - 1);
      const half = 1 << (shift - 1);
      if (rem > half || (rem === half && (h & 1))) h += 1;
      return sign | h;
    }
    let h = (e << 10) | (man >>> 13);
    const rem = man & 0x1fff;
    if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h += 1;
    return sign | h;
  };
  const fromBits = (h) => {
    h &= 0xffff;
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >>> 10) & 0x1f;
    const m = h & 0x3ff;
    if (e === 0) return sign * m * 2 ** -24;
    if (e === 0x1f) return m ? NaN : sign * Infinity;
    return sign * (1 + m / 1024) * 2 ** (e - 15);
  };
  m['f16.to_bits'] = toBits;
  m['f16.from_bits'] = fromBits;
  m['f16.round'] = (x) => fromBits(toBits(x));
  // Rounds through f32 first (twice); exact for values that f32 holds exactly.
  m['f16.from_f64'] = (x) => fromBits(toBits(x));
  return { math: m };
}

export async function load(bytes, manifest) {
  const { instance } = await WebAssembly.instantiate(bytes, mathImports());
  return new Program(instance.exports, manifest);
}

function readScalar(view, addr, t) {
  switch (t) {
    case 'bool': return view.getUint8(addr) !== 0;
    case 'i8': return view.getInt8(addr);
    case 'u8': return view.getUint8(addr);
    case 'i16': return view.getInt16(addr, true);
    case 'u16': return view.getUint16(addr, true);
    case 'i32': return view.getInt32(addr, true);
    case 'u32': return view.getUint32(addr, true);
    case 'i64': return view.getBigInt64(addr, true);
    case 'u64': return view.getBigUint64(addr, true);
    case 'f32': return view.getFloat32(addr, true);
    case 'f64': return view.getFloat64(addr, true);
    default: throw new Error(`unsupported type ${t}`);
  }
}

function fill(msg, vals) {
  let k = 0;
  return msg.replace(/\{\}/g, () => (k < vals.length ? String(vals[k++]) : '{}'));
}

export class Program {
  constructor(exports, manifest) {
    this.x = exports;
    this.manifest = manifest;
  }

  run(entry, args) {
    const ep = this.manifest.entries.find((e) => e.name === entry);
    if (!ep) throw new Error(`no entry point named \`${entry}\``);
    const x = this.x;
    x.reset();
    try {
      const dims = [];
      const vals = [];
      ep.params.forEach((p, k) => {
        const a = args[k];
        if (p.rank === 0) {
          vals.push(p.elem === 'bool' ? (a ? 1 : 0) : a);
          return;
        }
        const bytes = a.data.byteLength;
        const ptr = x.alloc(BigInt(bytes));
        new Uint8Array(x.memory.buffer, ptr, bytes).set(new Uint8Array(a.data.buffer, a.data.byteOffset, bytes));
        for (const d of a.shape) dims.push(BigInt(d));
        vals.push(ptr);
      });
      let rec;
      try {
        rec = x[ep.export](...dims, ...vals);
      } catch (e) {
        throw this.error(e);
      }
      const view = new DataView(x.memory.buffer);
      let addr = rec;
      return ep.results.map((r) => {
        if (r.rank === 0) {
          const v = readScalar(view, addr, r.elem);
          addr += 8;
          return v;
        }
        const ptr = Number(view.getBigInt64(addr, true));
        const shape = [];
        for (let k = 1; k <= r.rank; k++) shape.push(Number(view.getBigInt64(addr + 8 * k, true)));
        addr += 8 * (1 + r.rank);
        const n = shape.reduce((a, b) => a * b, 1);
        const Ty = ARRAYS[r.elem];
        const data = new Ty(x.memory.buffer.slice(ptr, ptr + n * SIZES[r.elem]));
        return { shape, data };
      });
    } finally {
      x.reset();
    }
  }

  error(trap) {
    const code = this.x.err_code.value;
    const site = this.manifest.sites[this.x.err_site.value];
    this.x.err_code.value = 0;
    if (code === 2) return new Error('out of memory: the arena cannot grow');
    if (code !== 1 || !site) return trap;
    const view = new DataView(this.x.memory.buffer);
    const vals = site.args.map((t, k) => readScalar(view, ERR_ARGS + 8 * k, t));
    const e = new Error(fill(site.msg, vals));
    e.span = site.span;
    return e;
  }
}
