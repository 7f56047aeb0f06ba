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
  /**
   * How many threads the wasm backend runs a program's parallel maps on, the calling one
   * included. Default: every core (`navigator.hardwareConcurrency`, `os.availableParallelism()`)
   * where the host has shared memory and workers: Node (worker_threads), or a cross-origin
   * isolated page or worker (`crossOriginIsolated`); elsewhere 1. `1` runs on the calling thread
   * only. A whole number from 1 to 1024; where threads are not available, programs run on one
   * thread whatever this says (`Program.threads` tells).
   */
  threads?: number;
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
/**
 * Compile and run in one call (compiles every time; see `load`). `args`: every argument in
 * Futhark value syntax, e.g. "[1f32, 2f32] 3f32", or an array of `Arg`s.
 */
export function run(source: string, entry: string, args?: string | Arg[], options?: RunOptions): Promise<Result[]>;

/**
 * One argument of `Program.run`, converted to the entry point's parameter type:
 * - a number (a float parameter takes any number, an integer one only integers in its range),
 *   a BigInt (64-bit integers), a boolean;
 * - a typed array (a one-dimensional array), or `{shape, data}` with `data` a typed array or a
 *   plain array of numbers in row-major order, optionally with `type` (an `ElemType`, e.g.
 *   "bool" for a Uint8Array of 0s and 1s); a result of `run` passes back unchanged;
 * - a (nested, regular) plain array of numbers;
 * - a string: one value in Futhark's value syntax.
 * Float data converts to any float type (rounded); integer data to any type that holds each value.
 */
export type Arg =
  | number | bigint | boolean | string | TypedArray | number[] | number[][] | number[][][]
  | { shape?: number[]; data: TypedArray | number[]; type?: ElemType };

/** A result of `Program.run`: as `Result`, with `text` computed when first read. */
export type ProgramResult = Result;

/** A program compiled once for one backend: `run` only runs it. */
export interface Program {
  readonly entries: string[];
  readonly backend: 'wasm' | 'interp' | 'webgpu';
  /**
   * How many threads the program's parallel maps run on, the calling one included: 1 without
   * threads (see `RunOptions.threads`), for a program with no map worth running in parallel, and
   * for the other backends.
   */
  readonly threads: number;
  /** Run an entry point. Rejects with an `OghamError` (argument, run-time or GPU errors). */
  run(entry: string, args?: Arg[] | string): Promise<ProgramResult[]>;
  /** Release the compiled module and its worker threads, or the GPU pipelines, now rather than
   *  when garbage-collected. */
  free(): void;
}

/**
 * Compile `source` for `options.backend` (default "wasm") once: the wasm module is instantiated,
 * or the GPU program's pipelines created (opening the GPU). Rejects with an `OghamError` when
 * the program has errors, WebGPU is missing, or the GPU backend can compile none of its entry
 * points (an entry point it cannot compile rejects when run).
 */
export function load(source: string, options?: RunOptions): Promise<Program>;
export function version(): string;
