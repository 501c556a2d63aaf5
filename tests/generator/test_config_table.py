"""``[tool.mcp-codegen]``: validated when present; without it pydantic is never imported
(a no-op rebuild stays fast, issue 32 point 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codegen.commands.config import ConfigFile, load_config_file


def test_table_is_validated(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nspecs = ["a"]\noutput = "o"\nruntime = "private"\n')
    cfg, root, error = load_config_file(tmp_path)
    assert (cfg, root, error) == (ConfigFile(specs=["a"], output="o", runtime="private"), tmp_path, None)
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nspecs = ["a"]\nshared-runtime = true\n')
    cfg, _, error = load_config_file(tmp_path)
    assert error is not None and "shared-runtime is gone" in error and 'runtime = "private"' in error
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nspec = "a"\ntarget = "all"\n')
    cfg, _, error = load_config_file(tmp_path)
    assert cfg == ConfigFile() and error is not None and "is invalid" in error and "spec" in error and "target" in error


def test_no_table_imports_no_pydantic(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    code = ("import sys\nfrom pathlib import Path\nfrom codegen.commands.config import load_config_file\n"
            f"print(load_config_file(Path({str(tmp_path)!r}))[2], 'pydantic' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["None", "False"]
