"""Hand-written implementation of the generated catalog server (an example).

A fixed catalog of three products.  Serve it with ``python -m catalog --stdio`` from this folder.
"""

from __future__ import annotations

from typing import Any

from catalog import Context, ServerSettings
from catalog.errors import UnknownSkuError
from catalog.models import (
    Category,
    CategoryTreeInput,
    Money,
    Product,
    ProductStatus,
    QuoteInput,
    QuoteInputLinesItemOption1,
    QuoteOutput,
    SearchProductsInput,
    SearchProductsInputSort,
    SearchProductsOutput,
    SetPriceInput,
)
from catalog.server import CatalogServerBase

PAGE_SIZE = 2


def _products() -> dict[str, Product]:
    raw: list[dict[str, Any]] = [
        {"sku": "LAMP-01", "name": "Desk lamp", "price": {"amount": 3999}, "status": "active",
         "attributes": {"color": "black"}, "variants": [{"sku": "LAMP-01-W", "label": "white", "stock": 3}]},
        {"sku": "CHAIR-7", "name": "Office chair", "price": {"amount": 12900}, "status": "active",
         "dimensions": {"width_cm": 60, "height_cm": 110, "depth_cm": 60}},
        {"sku": "DESK-2", "name": "Standing desk", "price": {"amount": 45000}, "status": "discontinued",
         "released": "2021-03-01"},
    ]
    return {p["sku"]: Product.model_validate(p) for p in raw}


class CatalogService(CatalogServerBase):
    """Search, quote and reprice a small in-memory catalog."""

    def __init__(self, settings: ServerSettings | None = None) -> None:
        super().__init__(settings)
        self.products = _products()

    def search_products(self, args: SearchProductsInput, ctx: Context) -> SearchProductsOutput:
        words = args.query.lower().split()
        hits = [p for p in self.products.values() if all(w in p.name.lower() for w in words)]
        if args.status:
            wanted = {s.value for s in args.status}
            hits = [p for p in hits if p.status.value in wanted]
        if args.max_price is not None:
            hits = [p for p in hits if p.price.amount <= args.max_price.amount]
        if args.sort is SearchProductsInputSort.price_asc:
            hits.sort(key=lambda p: p.price.amount)
        elif args.sort is SearchProductsInputSort.price_desc:
            hits.sort(key=lambda p: -p.price.amount)
        page = args.page or 1
        start = (page - 1) * PAGE_SIZE
        more = len(hits) > start + PAGE_SIZE
        return SearchProductsOutput(items=hits[start:start + PAGE_SIZE], next_page=page + 1 if more else None)

    def quote(self, args: QuoteInput, ctx: Context) -> QuoteOutput:
        lines: list[Money] = []
        for line in args.lines:
            if isinstance(line, QuoteInputLinesItemOption1):
                product = self.products.get(line.sku)
                if product is None:
                    raise UnknownSkuError(f"unknown SKU {line.sku}", data={"sku": line.sku})
                lines.append(Money(amount=product.price.amount * (line.quantity or 1)))
            else:
                lines.append(line.price)
        return QuoteOutput(total=Money(amount=sum(m.amount for m in lines)), lines=lines)

    def category_tree(self, args: CategoryTreeInput, ctx: Context) -> Category:
        return Category.model_validate(
            {"name": "all", "children": [{"name": "furniture", "children": [{"name": "desks"}, {"name": "chairs"}]},
                                         {"name": "lighting"}]})

    def set_price(self, args: SetPriceInput, ctx: Context) -> Product:
        product = self.products.get(args.sku)
        if product is None:
            raise UnknownSkuError(f"unknown SKU {args.sku}", data={"sku": args.sku})
        if args.price is not None:
            amount = args.price.amount
        else:
            amount = round(product.price.amount * (1 + (args.percent or 0) / 100))
        updated = product.model_copy(update={"price": Money(amount=amount)})
        self.products[args.sku] = updated
        return updated


__all__ = ["CatalogService", "ProductStatus"]
