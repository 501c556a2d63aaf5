"""The spec format's patterns in words: a hint says what a value must look like, not a regex.

Every ``pattern`` of ``spec-format.schema.json`` has an entry (``tests/generator/test_spec_hints.py``
checks it); a diagnostic quotes :func:`pattern_words` instead of the pattern.
"""

from __future__ import annotations

_SNAKE = "must start with a lowercase letter or _ and hold only lowercase letters, digits and _"
_HTTP_TOKEN = "letters, digits and punctuation other than the separators of RFC 9110 (no brackets, quotes, commas, colons, slashes or equals signs)"

#: pattern -> what a value matching it looks like, in words (completing "the value ...").
PATTERN_WORDS: dict[str, str] = {
    r"^[a-z_][a-z0-9_]*$(?!\n)": _SNAKE,
    r"^[a-z][a-z0-9_]*$(?!\n)": "must start with a lowercase letter and hold only lowercase letters, digits and _",
    r"^[A-Z][A-Za-z0-9]*$(?!\n)": "must start with an uppercase letter and hold only letters and digits",
    r"^[A-Za-z_][A-Za-z0-9_]*$(?!\n)": "must start with a letter or _ and hold only letters, digits and _",
    r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$(?!\n)":
        "must be module:Class, a dotted module path, a colon and a class name (letters, digits and _, "
        "not starting with a digit), e.g. notes_impl:NotesService",
    r"^[\x21\x23-\x5B\x5D-\x7E]+$(?!\n)":
        "must be an OAuth scope: one or more printable ASCII characters, without spaces, \" or \\",
    r"^[A-Za-z0-9_-]{1,64}$(?!\n)": "must be 1 to 64 letters, digits, _ or -",
    # patterns of the upstream (HTTP binding) keys
    r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$(?!\n)": f"must be an HTTP token: {_HTTP_TOKEN}, no spaces",
    r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$(?!\n)":
        "must be a media type such as application/json (type/subtype, then perhaps ; and parameters)",
    r"^[0-9a-f]{64}$(?!\n)": "must be 64 lowercase hexadecimal digits (a SHA-256 digest)",
    r"^/": "must start with /",
    r"^([1-5][0-9][0-9]|[1-5]XX|default)$(?!\n)": "must be an HTTP status code (100-599), a range such as 4XX, or default",
}


def pattern_words(pattern: str) -> str:
    """What a value must look like to match ``pattern`` of the spec format, in words."""
    return PATTERN_WORDS.get(pattern, f"must match the pattern {pattern}")


__all__ = ["PATTERN_WORDS", "pattern_words"]
