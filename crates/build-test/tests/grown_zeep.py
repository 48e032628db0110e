"""zeep calls the server generated from wsdl/grown_doc.wsdl (run by tests/grown.rs).

Argument: the `?wsdl` URL the generated server publishes. Calls `Indienen` with the header
block whose type is in another namespace and reads the response header, and `GetPerson`,
whose request part has `type=`, and `Plot`, a repeated choice with a sequence alternative. Exits non-zero on any mismatch.
"""
import sys

import zeep

client = zeep.Client(sys.argv[1])
Header = client.get_element("{urn:example:grown}ReferentieHeader")
answer = client.service.Indienen(
    bericht="z", _soapheaders=[Header(ReferentieId="Z-1", Volgnummer=1)]
)
assert answer.body.ontvangen == "z (Z-1)", answer
header = answer.header.ReferentieHeader
assert header.ReferentieId == "re:Z-1", header
assert header.Volgnummer == 2, header
# zeep takes a simple-typed body element positionally; it sends `<personId>4711</personId>`
person = client.service.GetPerson("4711")
assert person.Name == "person 4711", person
assert person.Age == 4, person
# A repeated choice whose alternative is a sequence: zeep's `_value_1` list.
summary = client.service.Plot(
    title="z",
    _value_1=[{"point": 1}, {"start": 2, "end": 3, "label": ["a", "b"]}, {"start": 4}],
)
assert summary == 't: p1 s2-Some(3)["a", "b"] s4-None[]'.replace("t:", "z:"), summary
print("zeep: a header of another namespace's type, a type= part, a repeated choice of a sequence: ok")
