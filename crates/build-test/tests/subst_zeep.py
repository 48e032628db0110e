"""zeep calls the server generated from wsdl/subst.wsdl (run by tests/subst.rs).

Argument: the `?wsdl` URL the generated server publishes, where each substitution group is
the choice it was lowered to (zeep 4.3 reads `substitutionGroup` but does not substitute, so
the original WSDL would not let it send a member). Sends members of the abstract `shape`
group (one from the second schema) and of the `note` group, and checks the answers. Exits
non-zero on any mismatch.
"""
import sys

import zeep

client = zeep.Client(sys.argv[1])
Drawing = client.get_type("{urn:soapstone:subst}Drawing")
print(Drawing.signature(schema=client.wsdl.types))

answer = client.service.draw(
    drawing=Drawing(
        title="z",
        square={"side": 1.5},
        _value_1=[{"warning": "w"}, {"note": "n"}],
        label="l",
        fixed=3,
    )
)
print(answer)
assert answer.area == 2.25, answer.area
back = answer.drawing
# The server answers a square with a tile of the same side.
assert back.tile.side == 1.5 and back.square is None, back
notes = [(v.get("note"), v.get("warning")) for v in back._value_1]
assert notes == [(None, "w"), ("n", None), (None, "was:square")], notes
assert back.label == "l" and back.fixed == 3, back

answer = client.service.draw(drawing=Drawing(title="z", hexagon=6, label="l"))
print(answer)
assert answer.area == 6.0, answer.area
assert answer.drawing.hexagon == 6, answer.drawing
notes = [(v.get("note"), v.get("warning")) for v in answer.drawing._value_1]
assert notes == [(None, "was:hexagon")], notes
assert answer.drawing.fixed is None, answer.drawing
print("ok")
