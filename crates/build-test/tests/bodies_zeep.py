"""zeep calls the server generated from wsdl/bodies.wsdl (run by tests/bodies.rs).

Argument: the `?wsdl` URL the generated server publishes. Calls `put` (three body parts, an
attribute of another namespace, a choice with a sequence alternative; an empty response
Body), `ping` (a header block and a response wrapper of another namespace), `reset` and
`clear` (empty request Bodies told apart by SOAPAction), and checks the answers. Exits
non-zero on any mismatch.
"""
import sys

import zeep

client = zeep.Client(sys.argv[1])
print(client.service.put.__doc__ or "")

answer = client.service.put(id=3, label="z", point={"unit": "km", "x": 2.0, "y": 3.0, "z": 4.0})
assert answer is None, answer
Trace = client.get_element("{urn:r}Trace")
answer = client.service.ping(_soapheaders=[Trace(id="z1")])
assert answer is True, answer
assert client.service.reset() is None
assert client.service.clear() is None
print("zeep: several parts, empty bodies, a header and a wrapper of another namespace: ok")
