"""Spec text into Markdown: the only ways it reaches a page (prose, one line, link text, table
cells, code spans) and the stable anchors of headings.  Spec text may come from a remote server
(``pull``), so each filter neutralises HTML and unsafe link destinations."""

from __future__ import annotations

import re
from typing import Any

_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


#: A Markdown link destination (inline ``](…)`` or a reference definition ``[x]: …``) whose
#: scheme runs code or smuggles content when clicked.
_UNSAFE_LINK = re.compile(r"(\]\(\s*|^\s{0,3}\[[^\]\n]+\]:\s*)(?:javascript|vbscript|data|file)\s*:[^)\s]*",
                          re.IGNORECASE | re.MULTILINE)


def md_text(text: Any) -> str:
    """Prose: HTML neutralised (``<`` ``>`` ``&``), control characters dropped, links with a
    ``javascript:``/``vbscript:``/``data:``/``file:`` destination made inert (``#``), Markdown
    otherwise kept.  Spec text may come from a remote server (``pull``)."""
    s = str(text).replace("\r\n", "\n").replace("\r", "\n")
    s = "".join(c for c in s if c in "\n\t" or c.isprintable())
    return _UNSAFE_LINK.sub(r"\1#", s.translate(_HTML)).strip()


def md_line(text: Any) -> str:
    """One line of prose (headings, list items): newlines folded into spaces."""
    return " ".join(md_text(text).split())


def md_link_text(text: Any) -> str:
    """The text of a link: one line, HTML neutralised, brackets escaped (a tool name such as
    ``x](javascript:…)`` cannot close the link early)."""
    return md_line(text).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def md_cell(text: Any) -> str:
    """A table cell: like :func:`md_text`, plus pipes escaped and newlines as ``<br>``."""
    s = md_text(text).replace("\\", "\\\\").replace("|", "\\|")
    return "<br>".join(line.strip() for line in s.split("\n"))


def md_code(text: Any, cell: bool = True) -> str:
    """A code span that survives any content (backtick runs, pipes in table cells)."""
    s = " ".join(str(text).replace("\r", " ").replace("\n", " ").split(" "))
    s = "".join(c if c.isprintable() else " " for c in s)
    if not s:
        return ""
    fence = "`" * (max((len(m) for m in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()) else ""
    out = f"{fence}{pad}{s}{pad}{fence}"
    return out.replace("|", "\\|") if cell else out


def anchor(kind: str, name: str) -> str:
    """A stable HTML id for a tool or type heading."""
    return f"{kind}-" + re.sub(r"[^a-z0-9_.-]+", "-", name.lower()).strip("-")
