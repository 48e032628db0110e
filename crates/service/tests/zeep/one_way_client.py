"""zeep calls a one-way operation of a soapstone server from the WSDL it serves.

Usage: python3 one_way_client.py WSDL_URL

Driven by crates/service/tests/one_way.rs: zeep reads `log` as input-only, sends it, and gets
`None` back from the HTTP 202 (it would raise on a fault or on another status). Then it reads
the lines back with the request-response `lines` operation. Prints `checks ok`.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zeep  # noqa: E402

from loopback import LoopbackOnly  # noqa: E402

client = zeep.Client(sys.argv[1], transport=LoopbackOnly())
binding = client.service._binding
op = binding.get("log")
assert op.output is None, f"log has an output: {op.output}"
result = client.service.log(line="from zeep")
assert result is None, f"a one-way call returned {result!r}"
lines = client.service.lines()
assert lines == ["from zeep"], f"lines: {lines!r}"
print("checks ok")
