"""Golden diagnostics of the host-limits lint (W111): tests/generator/golden/errors/hosts/<case>.yaml
linted with each profile, compared with <case>.<profile>.txt.  Apart from the error goldens
of test_golden.py because these specs are valid: only ``validate`` prints these warnings.

Update after a deliberate change with:  pytest tests/generator/golden/test_host_goldens.py --update-goldens
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.spec.hostlint import lint_paths

HOSTS = Path(__file__).parent / "errors" / "hosts"
PROFILES = ("all", "common")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("case", sorted(p.stem for p in HOSTS.glob("*.yaml")))
def test_host_golden(case: str, profile: str, update_goldens: bool) -> None:
    text = "".join(d.render() + "\n" for d in lint_paths([HOSTS / f"{case}.yaml"], profile))
    expected = HOSTS / f"{case}.{profile}.txt"
    if update_goldens:
        expected.write_text(text, encoding="utf-8", newline="\n")
    assert text == expected.read_text("utf-8"), "diagnostics changed; review and run " \
        "`pytest tests/generator/golden/test_host_goldens.py --update-goldens`"
