"""The wire names of the server's optional extensions that the core routes by: methods, capability keys.

The tasks extension (``tasks/``) and the Skills extension (:mod:`.skills`) are optional
features (:mod:`.features`): a private runtime copy holds them only when the spec uses them.
The core (:mod:`.dispatch`, :mod:`.calls`, :mod:`.changes`) still routes their methods and
reads the client's capabilities, so these names live here, imported by the features too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..wire.errors import InvalidParamsError, MissingCapabilityError
from .principal import identity
from .signing import digest

if TYPE_CHECKING:
    from .connection import Connection

#: The tasks extension's capability key (SEP-2663).
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: Its methods (2026-07-28 only).
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
#: Its notification (one per change of a task).
TASK_NOTIFICATION = "notifications/tasks"
#: The Skills extension's methods (2026-07-28 only).
SKILL_METHODS = frozenset({"skills/list", "skills/get", "resources/directory/read"})


def missing_tasks_extension(what: str) -> MissingCapabilityError:
    """The error of ``what`` (a task request, a task tool) from a client that did not declare the
    tasks extension."""
    return MissingCapabilityError(f"Missing client capability: {what} needs the {TASKS_EXTENSION} extension",
                                  data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})


def task_request_id(method: str, params: Mapping[str, Any], caps: Mapping[str, Any]) -> str:
    """The ``taskId`` of a ``tasks/*`` request, once the request itself is checked (the extension
    declared, a string id); the same answers whether or not this runtime holds the tasks feature."""
    if not declares_tasks(caps):
        raise missing_tasks_extension(method)
    task_id = params.get("taskId")
    if not isinstance(task_id, str):
        raise InvalidParamsError(f"Invalid params: {method} needs a string taskId")
    return task_id


def unknown_task(task_id: str) -> InvalidParamsError:
    """The answer to a ``tasks/*`` request naming no task of the caller."""
    return InvalidParamsError(f"Invalid params: unknown task {task_id!r}")


def declares_tasks(caps: Mapping[str, Any]) -> bool:
    """True when client capabilities name the tasks extension."""
    extensions = caps.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(TASKS_EXTENSION), dict)


def task_owner(conn: Connection) -> str:
    """Whose tasks a connection's requests touch: the verified principal, else its client key."""
    return digest(identity(conn.principal)) if conn.principal is not None else conn.client_key


__all__ = ["SKILL_METHODS", "TASKS_EXTENSION", "TASK_METHODS", "TASK_NOTIFICATION", "declares_tasks", "task_owner"]
