"""``JSONEncoder.encode`` without its per-call set-up: :func:`encoder_of`.

``json.JSONEncoder.encode`` (and so ``json.dumps``) builds, on every call, a markers dict, a
float-formatting closure and a new C encoder (``json.encoder.c_make_encoder``) from the
encoder's options, through two Python frames.  :func:`encoder_of` reads the options once and
returns a function calling a C encoder built from them directly: the same text, the same exceptions (``TypeError`` for a non-JSON type, ``ValueError`` for NaN or
infinity without ``allow_nan``, or a circular reference).  A C encoder (with its markers
dict, the containers being encoded) serves one call at a time: it is taken from a list of idle
ones (a new one when none is idle, as in a second thread) and put back only after a success
(the C encoder leaves entries in the dict after an error), so it is as safe as the encoder it
replaces.  Without the C accelerator, with an ``indent`` (the stdlib then encodes in
Python), or for a subclass overriding ``encode`` or ``iterencode``, it is the encoder's own
``encode``.  A string alone takes ``encode``'s own
path, as in the stdlib.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import Any


def encoder_of(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """A function giving ``encoder.encode(value)`` for every value (see the module docstring)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if (make is None or encoder.indent is not None
            or type(encoder).encode is not json.JSONEncoder.encode
            or type(encoder).iterencode is not json.JSONEncoder.iterencode):
        return encoder.encode
    basestring = json.encoder.encode_basestring_ascii if encoder.ensure_ascii else json.encoder.encode_basestring
    options = (encoder.default, basestring, encoder.indent, encoder.key_separator, encoder.item_separator,
               encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    circular = encoder.check_circular
    plain = encoder.encode
    idle: list[Any] = []  # C encoders not in use, each with its own (empty) markers dict

    def encode(value: Any) -> str:
        if isinstance(value, str):  # encode() takes this path without the C encoder
            return plain(value)
        try:
            c_encoder = idle.pop()
        except IndexError:
            c_encoder = make({} if circular else None, *options)
        text = "".join(c_encoder(value, 0))
        idle.append(c_encoder)  # not after an error: its markers may hold entries
        return text

    return encode


__all__ = ["encoder_of"]
