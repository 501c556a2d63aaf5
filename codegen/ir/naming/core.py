"""The naming service: every Python name of generated code is decided here, and only read elsewhere.

The lowering step (:mod:`codegen.ir.lower`), the model-document builder
(:mod:`codegen.schemas.document`) and ``mcp-codegen pull`` (:mod:`codegen.commands.pull.normalize`)
call the functions below; none of them derives a name itself (``tests/generator/test_naming_authority.py``
checks that no other module builds :class:`ClassName`/:class:`PyIdent`/:class:`MethodName` or calls
:func:`snake`/:func:`pascal`).  The model generator (datamodel-code-generator) is *told* the
names decided here: class names as the document's ``$defs`` keys and ``title`` s, field names
as its ``aliases`` option, enum member names as ``x-enum-varnames``; those two kinds, the names
*inside* a model, are decided in :mod:`codegen.ir.naming.models`.

Who decides what (the function to call for each kind of name):

=============================  ===========================================================
package                        :func:`package_name`, :func:`unshadowed_package` (W101)
server/client classes, script  :func:`class_stem`, :func:`server_names`, :data:`SERVER_CLASSES`
pytest fixtures (testing.py)   :mod:`codegen.ir.naming.testing`
tool method / constant         :func:`tool_method`, :func:`tool_const`
upstream constants             :mod:`codegen.ir.naming.upstream`
tool classes                   :func:`tool_stem`, :func:`tool_class`, :func:`answer_class`
error classes                  :func:`error_class`
input / handler / completion   :func:`input_method`, :func:`handler_method`, :func:`completion_method`
template / prompt models       :func:`template_class`, :func:`prompt_class`
``$defs`` and ``$ref`` classes  :func:`def_class`, :func:`schema_class`, :func:`scoped_class`, :func:`path_class`
nested classes                 :func:`nested_class`, :func:`override_class` (``x-python-name``)
client keyword arguments       :func:`argument_names`, :func:`method_body_names`
model fields, enum members     :func:`codegen.ir.naming.models.field_names`, ``enum_member_names``
pulled specs' overrides        :func:`pulled_package`, :func:`pulled_class_stem`, :func:`pulled_local_class`
=============================  ===========================================================

Building blocks: :class:`PyIdent` (snake_case) and :class:`ClassName` (PascalCase), made safe by
appending ``_`` / ``Model``; :class:`NameRegistry` reports a collision naming both origins (E030).
"""

from __future__ import annotations

import builtins
import keyword
import re
import sys
import unicodedata
from dataclasses import dataclass
from typing import TypedDict

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


#: Names the typed resource-template and prompt methods' bodies use (their arguments get ``_``).
CATALOG_METHOD_BODY_NAMES = frozenset({"self", "cls", "RESOURCE_TEMPLATES", "PROMPTS"})


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


# -- the name of each kind: what lowering, the model document and pull call ------------------
#: The classes every package defines from the server's class stem: suffix -> what it is.
SERVER_CLASSES = (("ServerBase", "server base class"), ("Client", "client class"), ("SyncClient", "sync client class"))


def package_name(server_name: str, package: str | None = None) -> str:
    """The generated package's name: ``server.package``, else from the server's name."""
    return package or str(PyIdent(natural_package(server_name) or server_name))


def class_stem(server_name: str, class_name: str | None = None) -> str:
    """The stem of the server/client class names: ``server.class_name``, else from the name."""
    return class_name or str(ClassName(natural_class_stem(server_name) or server_name))


def unshadowed_package(package: str) -> str:
    """``package``, with ``_mcp`` appended when it is a standard-library module's name (W101)."""
    return package + "_mcp" if package in sys.stdlib_module_names else package


class ServerNames(TypedDict):  # the ServerIR fields named after the package and the class stem
    base_class: str
    client_class: str
    sync_client_class: str
    script: str
    impl_module: str
    impl_class: str


def server_names(package: str, stem: str) -> ServerNames:
    """The names a package defines from its name and class stem (``ServerIR`` fields)."""
    return {"base_class": stem + "ServerBase", "client_class": stem + "Client", "sync_client_class": stem + "SyncClient",
            "script": package.replace("_", "-") + "-server", "impl_module": package + "_impl",
            "impl_class": stem + "Service"}


def tool_method(tool_name: str, python_name: str | None, runtime: frozenset[str], prefix: str = "") -> str:
    """A tool's handler / typed-call method name (``python_name`` overrides the tool name); ``prefix="start_"``: a task tool's task-handle call."""
    return str(MethodName(prefix + (python_name or tool_name), runtime))


def tool_stem(tool_name: str, python_name: str | None) -> ClassName:
    """The stem of a tool's class names (``<Stem>Input``, ``<Stem>Output``, ``<Stem>Inputs``)."""
    return ClassName(python_name or tool_name)


def tool_class(stem: str, role: str) -> ClassName:
    """``<Stem><Role>``: a tool's ``Input``, ``Output`` or ``Inputs`` class."""
    return ClassName(stem, role)


def tool_const(method: str) -> str:
    """The module constant holding a tool's definition: ``get_weather`` -> ``GET_WEATHER_TOOL``."""
    return method.upper().rstrip("_") + "_TOOL"


def error_class(code: str) -> str:
    """The exception class of a declared error code: ``not_found`` -> ``NotFoundError``."""
    return str(ClassName(code, "Error"))


def answer_class(stem: str, key: str) -> ClassName:
    """The model of a form elicitation's answer (a tool's declared input ``key``)."""
    return ClassName(stem + "_" + key, "Answer")


def input_method(key: str) -> str:
    """The handler method of a tool's declared client input."""
    return str(MethodName(key, frozenset({"self"})))


def handler_stem(name: str) -> str:
    """The part of a resource, template or prompt handler's name after its prefix."""
    return str(PyIdent(name))


def handler_method(prefix: str, python_name: str | None, name: str, runtime: frozenset[str]) -> str:
    """``read_<x>`` / ``prompt_<x>``: a resource, template or prompt handler."""
    return str(MethodName(f"{prefix}_{python_name or handler_stem(name)}", runtime))


def completion_method(owner: str, key: str, runtime: frozenset[str]) -> str:
    """``complete_<owner>_<key>``: the handler completing argument ``key`` of ``owner``."""
    return str(MethodName(f"complete_{owner}_{PyIdent(key)}", runtime))


def template_class(python_name: str | None, name: str) -> ClassName:
    """The variables model of a resource template."""
    return ClassName(ClassName(python_name or name), "Variables")


def prompt_class(python_name: str | None, name: str) -> ClassName:
    """The arguments model of a prompt."""
    return ClassName(ClassName(python_name or name), "Arguments")


def def_class(key: str) -> ClassName:
    """The class of a spec-level ``$defs`` entry: its key."""
    return ClassName(key)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def schema_class(pointer: str, file: str, override: object = None) -> ClassName:
    """The class of a schema reached by ``$ref``: its ``x-python-name``, else the last token of
    its pointer, else its file's stem."""
    if isinstance(override, str):
        return ClassName(override)
    last = pointer.rsplit("/", 1)[-1] or file.rsplit("/", 1)[-1].split(".")[0]
    return ClassName(_unescape(last))


def scoped_class(stem: str, name: str) -> ClassName:
    """A tool-local ``$defs`` entry named like another class: namespaced by its tool's stem."""
    return ClassName(stem + name)


def path_class(stem: str, tokens: list[str]) -> ClassName:
    """A nested tool-local definition still clashing: the stem and every pointer token."""
    return ClassName(stem + "".join(pascal(_unescape(t)) for t in tokens))


def nested_class(parent: str, kind: str, key: str | int = "") -> str:
    """A nested schema that becomes a class, named after its place in ``parent``: ``property``
    ``key`` -> ``<Parent><Key>``, ``item`` -> ``<Parent>Item``, ``value`` (additional
    properties) -> ``<Parent>Value``, ``option`` ``i`` (0-based) -> ``<Parent>Option<i+1>``."""
    if kind == "property":
        return parent + pascal(str(key))
    if kind == "option":
        return f"{parent}Option{int(key) + 1}"
    return parent + {"item": "Item", "value": "Value"}[kind]


def override_class(x_python_name: str) -> str:
    """A nested schema's ``x-python-name``, made a safe class name."""
    return str(ClassName(x_python_name))


def bundled_def_key(file: str) -> str:
    """The ``$defs`` key of a whole other file bundled into a wire schema (a JSON key, not Python)."""
    return pascal(file.rsplit("/", 1)[-1].split(".")[0])


def pulled_package(raw: str) -> str:
    """A pulled server's package name: ``mcp-servers/everything`` -> ``mcp_servers_everything``."""
    name = snake(raw)
    if name and name[0].isdigit():
        name = "n" + name
    return name or "server"


def pulled_class_stem(name: str) -> str:
    """A pulled server's ``class_name`` from the ``--name`` given to pull."""
    stem = pascal(name) or "Server"
    return stem if stem[0].isalpha() else "N" + stem


def pulled_local_class(stem: str, role: str, name: str) -> str:
    """``x-python-name`` pull gives a tool-local definition whose class name would clash."""
    return str(ClassName(f"{stem}{role}_{name}"))
