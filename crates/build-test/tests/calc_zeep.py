"""zeep calls the server generated from wsdl/calculator.wsdl (run by tests/calculator.rs).

Argument: the `?wsdl` URL the generated server publishes. Sends the declared `Auth` header,
reads the declared `Trace` response header, and gets the declared `divideByZero` fault whose
detail zeep parses with the WSDL's own element. Exits non-zero on any mismatch.
"""
import sys

import zeep
from zeep.exceptions import Fault

client = zeep.Client(sys.argv[1])
auth = {"Auth": {"user": "zed", "token": "secret"}}

answer = client.service.divide(dividend=17, divisor=5, _soapheaders=auth)
assert answer.body.quotient == 3 and answer.body.remainder == 2, answer
assert answer.header.Trace.id == "trace-zed", answer

try:
    client.service.divide(dividend=9, divisor=0, _soapheaders=auth)
    raise SystemExit("expected the declared fault")
except Fault as fault:
    assert fault.message == "division by zero", fault.message
    (element,) = list(fault.detail)
    detail = client.get_element("{urn:example:calc}DivideByZero").parse(element, client.wsdl.types)
    assert detail.dividend == 9 and detail.hint == "divide by something else", detail

# Without the header the service answers with its own (undeclared) fault.
try:
    client.service.divide(dividend=1, divisor=1)
    raise SystemExit("expected a fault without the header")
except Fault as fault:
    assert fault.message == "missing `Auth` header", fault.message

print("zeep: headers and faults ok")
