// Types of the npm package `ogham` (hand-written; the API is in web/src/lib.rs).

/** Where a diagnostic points: byte offsets into the source, 1-based line and column. */
export interface Span {
  start: number;
  end: number;
  line: number;
  col: number;
}

export interface Diagnostic {
  message: string;
  severity: 'error' | 'warning';
  /** "parse error", "type error", "size error", "rank error", "unsupported", "runtime error", "value error". */
  phase: string;
  /** null for problems outside the program (an unknown entry point, malformed arguments). */
  span: Span | null;
  hint: string | null;
}

export interface Stages {
  /** The program after AUTOMAP (inserted maps and reps listed). */
  elaborated: string | null;
  /** The core IR after lowering. */
  ir: string | null;
  /** Per entry point, its derivative (vjp by default, jvp with `{derivative: "jvp"}`) with
   *  respect to all of its parameters, after differentiation and simplification; an entry point
   *  without float parameters gets a comment saying so. */
  derivative: Record<string, string> | null;
  /**
   * The GPU program as `ogham show wgsl` prints it (every WGSL kernel, then the host schedule).
   * For a program the GPU backend cannot compile (f64, unsupported constructs), WGSL comments
   * saying why. null when compilation stopped earlier.
   */
  wgsl: string | null;
  /** The wasm module as text. */
  wasm: string | null;
}

export interface CompileResult {
  diagnostics: Diagnostic[];
  stages: Stages;
  /** Milliseconds per stage that ran: parse, check, lower, ad, derivative, wasm, wat, wgsl. */
  timings: Record<string, number>;
  /** The program's entry points. */
  entries: string[];
}

export type ElemType =
  | 'bool' | 'i8' | 'i16' | 'i32' | 'i64' | 'u8' | 'u16' | 'u32' | 'u64' | 'f16' | 'f32' | 'f64';

export type TypedArray =
  | Uint8Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Uint16Array | Uint32Array
  | BigUint64Array | Float32Array | Float64Array;

/** One result: a scalar has shape [] and one element. bool is a Uint8Array, f16 a Float32Array. */
export interface Result {
  type: ElemType;
  shape: number[];
  data: TypedArray;
  /** The value in Futhark's value syntax. */
  text: string;
}

export interface RunOptions {
  /**
   * Default "wasm". "webgpu" runs on the browser's GPU (`navigator.gpu`); where WebGPU is missing
   * (Node, some browsers) it rejects with "WebGPU is not available in this browser/runtime".
   */
  backend?: 'wasm' | 'interp' | 'webgpu';
}

/** An error from `run`: `message` is the first diagnostic's. */
export interface OghamError extends Error, Diagnostic {
  diagnostics: Diagnostic[];
}

/** Load the compiler (once). In Node it reads the .wasm beside the package; in browsers it fetches it. */
export function init(source?: string | URL | BufferSource | WebAssembly.Module): Promise<void>;
export interface CompileOptions {
  /** Which derivative `stages.derivative` shows: reverse mode (the default) or forward mode. */
  derivative?: 'vjp' | 'jvp';
}

export interface RandomArgsOptions {
  /** Every array dimension (default 8). */
  size?: number;
  /** The same seed gives the same arguments (default 0). */
  seed?: number;
}

export function compile(source: string, options?: CompileOptions): CompileResult;
/** Random arguments for `entry`: floats uniform in [0, 1), integers in [0, 100). Throws an
 *  `OghamError` when the program does not compile or has no such entry point. */
export function randomArgs(source: string, entry: string, options?: RandomArgsOptions): string;
/** `args`: every argument in Futhark value syntax, e.g. "[1f32, 2f32] 3f32". */
export function run(source: string, entry: string, args?: string, options?: RunOptions): Promise<Result[]>;
export function version(): string;
