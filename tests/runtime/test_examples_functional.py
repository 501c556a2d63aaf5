"""The notes and catalog examples end to end: generated client -> generated server, in process,
in both protocol eras, through the typed methods (declared errors, elicitation, unions, recursion)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from catalog import CatalogSyncClient, ElicitationRequest, ElicitationResponse
from catalog.errors import InvalidArgumentsError as CatalogInvalidArgumentsError
from catalog.errors import UnknownSkuError
from catalog.models import Money, QuoteInputLinesItemOption1, QuoteInputLinesItemOption2, SearchProductsInputSort
from catalog_impl import CatalogService
from notes import NotesSyncClient
from notes.errors import ConfirmationDeclinedError, InvalidArgumentsError, NotFoundError
from notes_impl import NotesService

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"

ERAS = ["modern", "legacy"]


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _answer(confirm: bool):  # type: ignore[no-untyped-def]
    seen: list[ElicitationRequest] = []

    def handler(req: ElicitationRequest) -> ElicitationResponse:
        seen.append(req)
        return ElicitationResponse(action="accept", content={"confirm": confirm})

    return handler, seen


@pytest.fixture
def notes(era: str) -> Iterator[tuple[NotesSyncClient, list[ElicitationRequest]]]:
    handler, seen = _answer(True)
    with NotesSyncClient.in_process(NotesService(), era=era, elicitation=handler, audit=None) as client:
        yield client, seen


def test_notes_crud(notes: tuple[NotesSyncClient, list[ElicitationRequest]]) -> None:
    client, seen = notes
    first = client.create_note(title="groceries", body="milk", tags=["home"])
    second = client.create_note(title="work")
    assert (first.id, second.id) == ("n1", "n2")
    listed = client.list_notes(tag="home")
    assert listed.total == 1 and [n.title for n in listed.notes] == ["groceries"]
    updated = client.update_note(id="n2", body="report", pinned=True)
    assert (updated.title, updated.body, updated.pinned) == ("work", "report", True)
    assert client.get_note(id="n2").body == "report"
    deleted = client.delete_note(id="n1")
    assert deleted.text() == "deleted n1"
    assert len(seen) == 1 and seen[0].message == "Really delete this note?"
    with pytest.raises(NotFoundError) as err:
        client.get_note(id="n1")
    assert err.value.data == {"id": "n1"}


def test_notes_invalid_arguments_and_declined_deletion(era: str) -> None:
    handler, _ = _answer(False)
    with NotesSyncClient.in_process(NotesService(), era=era, elicitation=handler, audit=None) as client:
        with pytest.raises(InvalidArgumentsError):
            client.call_tool("get_note", {"id": "not-an-id"})
        client.create_note(title="keep me")
        with pytest.raises(ConfirmationDeclinedError):
            client.delete_note(id="n1")
        assert client.list_notes().total == 1


def test_catalog_rich_schemas(era: str) -> None:
    with CatalogSyncClient.in_process(CatalogService(), era=era, audit=None) as client:
        page = client.search_products(query="desk", sort=SearchProductsInputSort.price_desc)
        assert [p.sku for p in page.items] == ["DESK-2", "LAMP-01"] and page.next_page is None
        # format: date is an annotation (JSON Schema 2020-12): the model holds the string as sent
        assert page.items[0].released == "2021-03-01"
        quote = client.quote(lines=[QuoteInputLinesItemOption1(kind="product", sku="LAMP-01", quantity=2),
                                    QuoteInputLinesItemOption2(kind="custom", description="gift wrap", price=Money(amount=250))])
        assert quote.total.amount == 2 * 3999 + 250
        with pytest.raises(UnknownSkuError) as err:
            client.quote(lines=[QuoteInputLinesItemOption1(kind="product", sku="NOPE-0")])
        assert err.value.data == {"sku": "NOPE-0"}
        tree = client.category_tree()
        assert tree.children is not None and tree.children[0].children is not None
        assert [c.name for c in tree.children[0].children] == ["desks", "chairs"]
        repriced = client.set_price(sku="CHAIR-7", percent=10)
        assert repriced.price.amount == 14190


def test_catalog_runtime_checked_keyword(era: str) -> None:
    """set_price's `oneOf: [{required: [price]}, {required: [percent]}]` is not in the model;
    the server enforces it against the original schema (warning W100 at build time)."""
    with CatalogSyncClient.in_process(CatalogService(), era=era, audit=None) as client:
        with pytest.raises(CatalogInvalidArgumentsError):
            client.set_price(sku="CHAIR-7")
        with pytest.raises(CatalogInvalidArgumentsError):
            client.set_price(sku="CHAIR-7", price=Money(amount=1), percent=5)
        assert client.set_price(sku="CHAIR-7", price=Money(amount=5)).price.amount == 5
