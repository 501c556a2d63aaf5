#!/usr/bin/env bash
# Copy codegen/runtime/ into every generated example package's _runtime/ (until `mcp-codegen build` does it).
set -euo pipefail
cd "$(dirname "$0")/.."
for pkg in generated_examples/*/; do
  [ -f "$pkg/tools.py" ] || continue
  rm -rf "$pkg/_runtime"
  mkdir -p "$pkg/_runtime"
  cp codegen/runtime/*.py "$pkg/_runtime/"
done
