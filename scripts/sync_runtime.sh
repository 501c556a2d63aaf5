#!/usr/bin/env bash
# Regenerate generated_examples/ from specs/ (copies codegen/runtime into every package's _runtime/).
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/mcp-codegen build specs -o generated_examples -q
