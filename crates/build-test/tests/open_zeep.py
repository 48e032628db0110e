"""zeep calls the server generated from wsdl/open.wsdl (run by tests/open.rs).

Argument: the `?wsdl` URL the generated server publishes. Calls `draw` with a choice, a
repeated choice, a list, an `anyType` value and an `xsd:any` element, and `annotate` with
wildcard elements, and checks the answers. Exits non-zero on any mismatch.
"""
import math
import sys

import zeep
from lxml import etree
from zeep import xsd

client = zeep.Client(sys.argv[1])
Drawing = client.get_type("{urn:soapstone:open}Drawing")
print(Drawing.signature(schema=client.wsdl.types))

ext = etree.fromstring('<e:ext xmlns:e="urn:ext">one</e:ext>')
drawing = Drawing(
    title="z",
    square={"side": 2.5},
    _value_1=[{"note": "n1"}, {"colour": "blue"}],
    sizes=[4, 5, 6],
    primary="red",
    payload=xsd.AnyObject(xsd.String(), "free text"),
    _value_2=[ext],
)
answer = client.service.draw(drawing=drawing)
print(answer)
assert answer.area == 6.25, answer.area
back = answer.drawing
assert back.title == "z", back
assert back.square.side == 2.5 and back.circle is None, back
assert back.sizes == [4, 5, 6], back.sizes
assert back.primary == "red", back.primary
notes = [(v.get("note"), v.get("colour")) for v in back._value_1]
assert notes == [("n1", None), (None, "blue"), ("extra:1", None)], notes
(raw,) = back._value_2
assert etree.QName(raw).localname == "ext" and raw.text == "one", etree.tostring(raw)

answer = client.service.draw(
    drawing=Drawing(title="c", circle=1.0, sizes=[], payload=xsd.AnyObject(xsd.Int(), 3))
)
assert math.isclose(answer.area, math.pi), answer.area

answer = client.service.annotate(note="n", _value_1=[etree.fromstring("<a>1</a>"), etree.fromstring("<b/>")])
assert answer.accepted == 2, answer
answer = client.service.annotate(note="m")
assert answer.rejected == "nothing to annotate with m", answer
print("zeep: draw and annotate with choices, a list, anyType and xsd:any: ok")
