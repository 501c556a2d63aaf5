"""``pull``, step 2's YAML: block style for structure, flow style for short leaves, ``|``
for multi-line text, comments that YAML can carry; and the check that the text loads back.

Imported only once the server has answered (the spec is written while the server exits),
so none of it delays the connection.
"""

from __future__ import annotations

from typing import Any

import yaml

#: Mappings and lists whose flow form is at most this long are written on one line.
_FLOW_WIDTH = 72


class _SpecDumper(yaml.SafeDumper):  # type: ignore[misc]
    """Block style for structure, flow style for short leaves, ``|`` for multi-line text."""


class Block(dict[str, Any]):
    """A mapping always written in block style (the ``server:`` section)."""


def _is_leaf(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


#: ``_short_flow`` answers by the exact leaves (type and repr: ``1``, ``1.0``, ``True``, ``-0.0`` apart).
_FLOW_CACHE: dict[tuple[Any, ...], bool] = {}


def _short_flow(value: Any) -> bool:
    if isinstance(value, dict):
        items = list(value.values())
    else:
        items = list(value)
    if not all(_is_leaf(v) and not (isinstance(v, str) and "\n" in v) for v in items):
        return False
    # A lower bound of the flow form's length, "{k: v, ...}" / "[v, ...]": YAML writes no leaf
    # shorter than ``str`` of it (quotes and escapes only add; None/True/False become
    # null/true/false; floats gain ".0"), so past the width the dump is not needed.
    keys = [str(k) for k in value] if isinstance(value, dict) else []
    bound = 2 + sum(len(str(v)) for v in items) + sum(len(k) + 2 for k in keys) + 2 * max(len(items) - 1, 0)
    if bound > _FLOW_WIDTH:
        return False
    pairs = value.items() if isinstance(value, dict) else ((None, v) for v in items)
    key = (type(value), *((k, type(v), repr(v)) for k, v in pairs))
    known = _FLOW_CACHE.get(key)
    if known is None:
        text = yaml.safe_dump(value, default_flow_style=True, width=10_000, allow_unicode=True)
        known = _FLOW_CACHE[key] = len(text.strip()) <= _FLOW_WIDTH
    return known


def _represent_dict(dumper: _SpecDumper, data: dict[str, Any]) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=_short_flow(data) if data else True)


def _represent_list(dumper: _SpecDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=_short_flow(data) if data else True)


def _represent_str(dumper: _SpecDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data and not any(line != line.rstrip() for line in data.splitlines()) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_SpecDumper.add_representer(dict, _represent_dict)
_SpecDumper.add_representer(Block, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=False))
_SpecDumper.add_representer(list, _represent_list)
_SpecDumper.add_representer(str, _represent_str)


def dump(value: Any, indent: int) -> str:
    text = yaml.dump(value, Dumper=_SpecDumper, sort_keys=False, allow_unicode=True, width=100, indent=2)
    pad = " " * indent
    return "".join(pad + line if line.strip() else line for line in text.splitlines(keepends=True))


def comment(text: str, indent: int) -> str:
    """YAML comment lines; characters YAML cannot carry (ESC, BEL, ...) are shown escaped."""
    pad = " " * indent
    safe = "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in text)
    return "".join(f"{pad}# {line}".rstrip() + "\n" for line in safe.splitlines())


def loads_back(text: str, data: dict[str, Any]) -> bool:
    """True when ``text`` loads back to ``data``: with libyaml when there (about 10x faster),
    and with the pure-Python loader, the one ``build`` reads specs with, whenever libyaml
    disagrees (so a libyaml quirk can never fail a pull, nor hide a real mismatch)."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None and yaml.load(text, Loader=fast) == data:
        return True
    return bool(yaml.safe_load(text) == data)
