"""zeep calls the server generated from wsdl/profile.wsdl (run by tests/profile.rs).

Argument: the `?wsdl` URL the generated server publishes. zeep writes each element in the
namespace the published schema gives it (`PhoneData` and `Tag` in urn:example:common through
`ref`, `note` unqualified by its `form`, `version` an attribute of the body wrapper) and parses the answer strictly by namespace: an
element the server wrote in another namespace is missing or unexpected to it. Exits non-zero
on a mismatch. The declared fault's detail element is of the common namespace too.
"""
import sys

import zeep

client = zeep.Client(sys.argv[1])
phone = {
    "PhoneData": {"PhoneNumber": "abc", "Comment": None},
    "IDs": ["1", "2"],
    "Tag": None,
    "note": "note me",
}
answer = client.service.update(version=1, phone=phone, Tag=["x", "y"])
echoed, tags = answer.phone, answer.tags
assert tags == 2, answer
assert answer.revision == 2, answer
assert echoed.PhoneData.PhoneNumber == "cba", echoed
assert echoed.IDs == ["1", "2", "id2"], echoed.IDs
assert echoed.Tag == "x", echoed
assert echoed.note == "NOTE ME", echoed
try:
    client.service.update(version=-2, phone=phone)
except zeep.exceptions.Fault as fault:
    (detail,) = fault.detail
    assert detail.tag == "{urn:example:common}ProfileError", detail.tag
    error = client.get_element("{urn:example:common}ProfileError").parse(detail, client.wsdl.types)
    assert error.code == -2 and error.reason == "versions start at 0", error
else:
    raise AssertionError("no fault for a negative version")
print("zeep: elements of their own namespace ok")
