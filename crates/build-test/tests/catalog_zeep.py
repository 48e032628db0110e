"""zeep calls the server generated from wsdl/catalog.wsdl (run by tests/catalog.rs).

Argument: the `?wsdl` URL the generated server publishes. Sends a product whose attributes
(`id`, `code`, `rank`), simple-content labels (`language` + text) and price (`currency`,
`exact` + a double) the server checks and echoes back changed; checks the answer's attributes
and text as zeep parses them with the WSDL the server publishes. Exits non-zero on a mismatch.
"""
import sys

import zeep

client = zeep.Client(sys.argv[1])
product = {
    "id": 42,
    "code": 'p&"q"<r>',
    "rank": 7,
    "name": "pen",
    "label": [
        {"_value_1": "stylo", "language": "fr"},
        {"_value_1": "Stift"},
    ],
    "price": {"_value_1": 2.5, "currency": "EUR", "exact": False},
}
answer = client.service.quote(product=product, quantity=4)
result, total = answer.result, answer.total
assert result.code == "quoted:42", result
(echoed,) = result.product
assert echoed.id == 43 and echoed.rank == 8, echoed
assert echoed.code == 'p&"q"<r>!', echoed.code
assert echoed.name == "pen", echoed
assert [(l._value_1, l.language) for l in echoed.label] == [
    ("stylo", "fr"),
    ("Stift", None),
    ("4 x pen", "en"),
], echoed.label
assert echoed.price._value_1 == 2.5 and echoed.price.currency == "EUR", echoed.price
assert echoed.price.exact is False, echoed.price
assert total._value_1 == 10.0 and total.currency == "EUR" and total.exact is True, total
print("zeep: attributes and simple content ok")
