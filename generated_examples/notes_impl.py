"""Hand-written implementation of the generated notes server (an example).

An in-memory note store.  ``delete_note`` asks the user to confirm through the declared
``confirm`` input (elicitation in 2025 sessions, an input_required round trip in 2026).
Serve it with ``python -m notes --stdio`` from this folder.
"""

from __future__ import annotations

import threading

from notes import Context, ServerSettings, TextContent, ToolResult
from notes.errors import ConfirmationDeclinedError, NotFoundError
from notes.models import (
    CreateNoteInput,
    DeleteNoteInput,
    GetNoteInput,
    ListNotesInput,
    ListNotesOutput,
    Note,
    UpdateNoteInput,
)
from notes.server import DeleteNoteInputs, NotesServerBase


class NotesService(NotesServerBase):
    """Notes kept in memory for the life of the process (thread-safe: sync handlers run in threads)."""

    def __init__(self, settings: ServerSettings | None = None) -> None:
        super().__init__(settings)
        self._lock = threading.Lock()
        self._notes: dict[str, Note] = {}
        self._next = 1

    def _get(self, note_id: str) -> Note:
        try:
            return self._notes[note_id]
        except KeyError:
            raise NotFoundError(f"no note {note_id}", data={"id": note_id}) from None

    def list_notes(self, args: ListNotesInput, ctx: Context) -> ListNotesOutput:
        with self._lock:
            notes = [n for n in self._notes.values() if args.tag is None or args.tag in (n.tags or [])]
        limit = args.limit or 20
        return ListNotesOutput(notes=notes[:limit], total=len(notes))

    def get_note(self, args: GetNoteInput, ctx: Context) -> Note:
        with self._lock:
            return self._get(args.id)

    def create_note(self, args: CreateNoteInput, ctx: Context) -> Note:
        with self._lock:
            note = Note(id=f"n{self._next}", title=args.title, body=args.body or "",
                        tags=[t.root for t in args.tags or []])
            self._notes[note.id] = note
            self._next += 1
        return note

    def update_note(self, args: UpdateNoteInput, ctx: Context) -> Note:
        with self._lock:
            changes = args.model_dump(exclude_unset=True, exclude={"id"})
            note = self._get(args.id).model_copy(update=changes)
            self._notes[note.id] = note
        return note

    async def delete_note(self, args: DeleteNoteInput, ctx: Context) -> ToolResult:
        with self._lock:
            self._get(args.id)
        answer = await DeleteNoteInputs(ctx).confirm()
        if not (answer.accepted and answer.content is not None and answer.content.confirm):
            raise ConfirmationDeclinedError(f"deletion of {args.id} declined")
        with self._lock:
            self._notes.pop(args.id, None)
        return ToolResult(content=[TextContent(text=f"deleted {args.id}")])
