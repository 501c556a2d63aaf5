"""Python names, safe by construction, and the registry that refuses collisions.

Every identifier that reaches generated code is built here: :class:`PyIdent` (snake_case
functions, methods, packages) and :class:`ClassName` (PascalCase).  Keywords, builtins and
names the runtime itself uses are made safe by appending ``_`` (identifiers) or ``Model``
(classes).  :class:`NameRegistry` records where each name came from and reports a
collision naming both origins instead of numbering silently.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata
from dataclasses import dataclass

#: Names the generated modules define or import themselves; a spec-derived name must not clash.
RESERVED_MODULE_NAMES = frozenset({
    "annotations", "Any", "Awaitable", "BaseModel", "ClassVar", "ConfigDict", "Context", "Elicited",
    "Field", "RootModel", "ServerBase", "ClientBase", "SyncClientBase", "ToolDef", "InputDef",
    "ServerInfo", "ToolResult", "SERVER_INFO", "TOOLS", "DECLARED_ERRORS", "self", "ctx", "client",
    "server", "mcp", "models", "errors", "tools", "main", "args",
    # names models.py imports (pydantic, typing, datetime, enum, uuid, decimal)
    "Literal", "Annotated", "Optional", "Union", "AwareDatetime", "NaiveDatetime", "AnyUrl", "UUID",
    "Decimal", "Enum", "StrEnum", "IntEnum", "EmailStr", "Json", "SecretStr", "PositiveInt",
})

#: Runtime error classes re-exported by errors.py (declared errors must not reuse them).
RUNTIME_ERROR_NAMES = frozenset({
    "McpError", "ProtocolError", "ParseError", "InvalidRequestError", "MethodNotFoundError",
    "InvalidParamsError", "UnknownToolError", "InternalError", "ResourceNotFoundError",
    "UrlElicitationRequiredError", "HeaderMismatchError", "MissingCapabilityError",
    "UnsupportedProtocolVersionError", "ToolError", "ToolExecutionError", "InvalidArgumentsError",
    "DeclaredToolError", "OutputValidationError", "McpTimeoutError", "TransportClosedError",
    "InputRequiredLoopError", "ConfirmationDeniedError",
})

_BUILTINS = frozenset(dir(builtins))


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]


def snake(text: str) -> str:
    """``getWeather`` / ``get-weather`` / ``get.weather`` -> ``get_weather``."""
    return "_".join(w.lower() for w in _words(text))


def pascal(text: str) -> str:
    """``get_weather`` -> ``GetWeather`` (existing inner capitals kept)."""
    return "".join(w[:1].upper() + w[1:] for w in _words(text))


_AFFIXES = (("mcp", "server"), ("mcp", "servers"), ("server", "mcp"), ("mcp",))


def natural_words(server_name: str) -> list[str]:
    """The words a package and class name are made of, from a server's name.

    Rule (documented in the README): take the last ``/``-separated segment, split it at
    non-alphanumerics and at lower-to-upper case changes (``DbHub`` -> ``Db Hub``, but
    ``ESLint`` stays one word), then drop a leading and a trailing ``mcp``, ``mcp server``
    or ``server mcp`` unless nothing would remain.  ``@acme/mcp-server-git`` -> ``git``,
    ``DbHubMcpServer`` -> ``Db Hub``, ``ESLint`` -> ``ESLint``, ``notes_server`` stays.
    """
    segments = [seg for seg in server_name.split("/") if seg.strip(" @")]
    text = segments[-1] if segments else server_name
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    words = [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]
    lower = [w.lower() for w in words]
    for affix in _AFFIXES:  # longest first
        if len(words) > len(affix) and tuple(lower[:len(affix)]) == affix:
            words, lower = words[len(affix):], lower[len(affix):]
            break
    for affix in _AFFIXES:
        if len(words) > len(affix) and tuple(lower[-len(affix):]) == affix:
            words = words[:-len(affix)]
            break
    return words


def natural_package(server_name: str) -> str:
    """``ESLint`` -> ``eslint``, ``DbHubMcpServer`` -> ``db_hub`` (see :func:`natural_words`)."""
    return "_".join(w.lower() for w in natural_words(server_name))


def natural_class_stem(server_name: str) -> str:
    """``ESLint`` -> ``ESLint``, ``db-hub-mcp`` -> ``DbHub`` (see :func:`natural_words`)."""
    return "".join(w[:1].upper() + w[1:] for w in natural_words(server_name))


class PyIdent(str):
    """A snake_case identifier that is not a keyword, builtin or reserved name."""

    __slots__ = ()

    def __new__(cls, raw: str, reserved: frozenset[str] = frozenset()) -> PyIdent:
        name = snake(raw) or "x"
        if name[0].isdigit():
            name = "n" + name
        while keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in _BUILTINS or name in reserved:
            name += "_"
        return super().__new__(cls, name)


#: Builtins the generated classes use in annotations: a method of that name would shadow them.
_ANNOTATION_BUILTINS = frozenset({"list", "dict", "tuple", "type", "str", "int", "float", "bool", "bytes", "object"})


class MethodName(str):
    """A method name (tool handler / typed call): snake_case, not a keyword, not a reserved
    name, not a builtin the class bodies use in annotations.  Other builtins are fine as
    method names (``set``, ``filter``, ``id``): attributes do not shadow module names."""

    __slots__ = ()

    def __new__(cls, raw: str, reserved: frozenset[str] = frozenset()) -> MethodName:
        name = snake(raw) or "x"
        if name[0].isdigit():
            name = "n" + name
        while keyword.iskeyword(name) or name in _ANNOTATION_BUILTINS or name in reserved:
            name += "_"
        return super().__new__(cls, name)


def method_body_names(tool_const: str, output_class: str | None) -> frozenset[str]:
    """Names a typed client method's body uses, which its arguments must not shadow."""
    return frozenset({"self", "cls", "wire_arguments", tool_const, *([output_class] if output_class else [])})


def argument_names(fields: list[str], taken: frozenset[str]) -> list[str]:
    """The keyword-argument names of a typed client method, one per model field (in order):
    the field's name, with ``_`` appended while it is ``taken`` or already used."""
    used = set(taken)
    out = []
    for name in fields:
        while name in used:
            name += "_"
        used.add(name)
        out.append(name)
    return out


class ClassName(str):
    """A PascalCase class name that cannot shadow a builtin or reserved name."""

    __slots__ = ()

    def __new__(cls, raw: str, suffix: str = "", reserved: frozenset[str] = frozenset()) -> ClassName:
        stem = pascal(raw) or "Model"
        if stem[0].isdigit():
            stem = "N" + stem
        name = stem + suffix
        if name in _BUILTINS or name in reserved or keyword.iskeyword(name):
            name += "Model"
        return super().__new__(cls, name)


#: Attributes of ``str`` and ``Enum`` members: an enum member of that name breaks mypy.
_ENUM_TAKEN = frozenset(n for n in (*dir(str), "name", "value", "mro") if not n.startswith("__"))


def enum_member_names(values: list[str]) -> list[str] | None:
    """Python names for the members of a string enum, when the default ones would clash.

    The model generator names members after their values (``high-prio`` -> ``high_prio``);
    a value such as ``count``, ``title`` or ``upper`` would shadow a ``str`` method.  Returns
    None when no value clashes (the generator's names are fine), else a name for every
    member, clashing ones suffixed with ``_``.
    """
    if not any(v in _ENUM_TAKEN for v in values):
        return None
    names: list[str] = []
    for value in values:
        name = re.sub(r"\W", "_", value, flags=re.ASCII) or "empty"
        if name[0].isdigit() or name.startswith("_"):
            name = "field_" + name.lstrip("_")
        while name in _ENUM_TAKEN or keyword.iskeyword(name) or name in names:
            name += "_"
        names.append(name)
    return names


@dataclass(frozen=True)
class Origin:
    """Where a name came from: a file, a JSON pointer, and what it names."""

    file: str
    pointer: str
    what: str

    def __str__(self) -> str:
        return f"{self.what} at {self.file}{'#' + self.pointer if self.pointer else ''}"


@dataclass(frozen=True)
class Collision:
    name: str
    first: Origin
    second: Origin


class NameRegistry:
    """One namespace (a module's classes, a class's methods): first come, collisions reported."""

    def __init__(self, reserved: frozenset[str] = frozenset()) -> None:
        self._owners: dict[str, Origin] = {}
        self._reserved = reserved
        self.collisions: list[Collision] = []

    def taken(self, name: str) -> bool:
        """Whether ``name`` is reserved or already claimed."""
        return name in self._reserved or name in self._owners

    def claim(self, name: str, origin: Origin) -> str:
        """Register ``name``; on a clash, record a :class:`Collision` naming both origins."""
        if name in self._reserved:
            self.collisions.append(Collision(name, Origin("mcp-codegen", "", "a name the generated code uses itself"), origin))
        elif name in self._owners:
            self.collisions.append(Collision(name, self._owners[name], origin))
        else:
            self._owners[name] = origin
        return name
