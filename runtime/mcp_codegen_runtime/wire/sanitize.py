"""Terminal-safe text: what a tool says must not drive the terminal that shows it.

The tools specification says servers MUST sanitize tool outputs.  A handler's text may
come from anywhere (a file, a web page, a subprocess), and escape sequences in it can
recolour, hide, retitle or rewrite what a user sees in a terminal or log viewer.
:func:`strip_controls` removes ANSI/VT escape sequences (CSI, OSC, DCS and two-character
ESC sequences, 7-bit and 8-bit forms) and every other control character except tab,
newline and carriage return.  Used by the server on text content and error messages (per
tool ``ToolDef.raw_output`` turns it off) and by the client's display helpers.
"""

from __future__ import annotations

import re

# ESC [ ... final | CSI (0x9b) ... final
_CSI = r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
# ESC ] / P / X / ^ / _ ... terminated by BEL or ST (ESC \ or 0x9c), or unterminated to the end
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)"
# any other ESC sequence: ESC, intermediates, one final byte
_ESC = r"\x1b[\x20-\x2f]*[\x30-\x7e]?"
_SEQUENCES = re.compile(f"{_STRING}|{_CSI}|{_ESC}", re.S)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tab, newline and
    carriage return stay)."""
    if not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))
