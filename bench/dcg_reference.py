"""The generator benchmark's reference: datamodel-code-generator alone, on the same schemas.

For every spec file in SPEC_DIR, one JSON Schema document is built from the spec's shared
``$defs`` plus each tool's ``inputSchema`` and ``outputSchema`` (as ``$defs`` entries, so the
spec's ``#/$defs/...`` references resolve unchanged).  DCG's public ``generate()`` turns
it into pydantic v2 models with DCG's default options, default formatting included (black
and isort), and the result is written to ``OUT_DIR/<spec>.py``.  Run in a fresh process by
``bench_generator.py``; it prints the number of lines written.

Usage::

    python bench/dcg_reference.py SPEC_DIR OUT_DIR
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path


def schema_document(spec: dict) -> dict:  # type: ignore[type-arg]
    defs = dict(spec.get("$defs", {}))
    for tool in spec["tools"]:
        defs[f"{tool['name']}_input"] = tool["inputSchema"]
        if "outputSchema" in tool:
            defs[f"{tool['name']}_output"] = tool["outputSchema"]
    return {"$defs": defs}


def main() -> None:
    from datamodel_code_generator import InputFileType, generate

    spec_dir, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = 0
    for path in sorted(spec_dir.glob("*.json")):
        document = schema_document(json.loads(path.read_text("utf-8")))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = generate(json.dumps(document), input_file_type=InputFileType.JsonSchema)
        assert isinstance(code, str)
        (out_dir / f"{path.stem}.py").write_text(code, encoding="utf-8")
        lines += code.count("\n")
    print(lines)


if __name__ == "__main__":
    main()
