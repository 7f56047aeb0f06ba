#!/usr/bin/env bash
# Builds the npm package's wasm: the compiler (crate ogham-web) for wasm32, then wasm-bindgen's
# ES-module glue into web/pkg/, with the executor of modules built with threads (runtime/js: the
# worker pool that web/threads.js uses). Needs wasm-bindgen-cli at the version in Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-target}"
cargo build -p ogham-web --target wasm32-unknown-unknown --profile wasm-release
wasm-bindgen --target web --no-typescript --out-dir web/pkg \
  "$target_dir/wasm32-unknown-unknown/wasm-release/ogham_web.wasm"
cp runtime/js/ogham.mjs runtime/js/worker.mjs web/pkg/
echo "web/pkg: $(wc -c < web/pkg/ogham_web_bg.wasm) bytes of wasm, $(gzip -9 -c web/pkg/ogham_web_bg.wasm | wc -c) gzipped"
