"""zeep client from contract/dp.wsdl, speaking the lab's peer-client protocol (docs/lab.md):

    python zeep_client.py URL OP N WARMUP_S WINDOW_S

calls OP one at a time for WARMUP_S seconds (not recorded), then WINDOW_S seconds, checks every
answer and prints one JSON line {"ok", "errors", "first_error", "samples_us"}. The peer standing
for a Python SOAP client (zeep over requests, one keep-alive session).
"""

import json
import os
import sys
import time

import zeep
from zeep.transports import Transport

MAX_SAMPLES = 1_000_000
CONTRACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contract")
WSDL = os.path.join(CONTRACT, "dp.wsdl")
SOAP_ENC = "http://schemas.xmlsoap.org/soap/encoding/"


class LocalSchemas(Transport):
    """Reads the SOAP-ENC schema from contract/ (zeep fetches a namespace it meets by its URL,
    and the lab has no network): the same file soapstone serves as `?xsd=soapenc`."""

    def load(self, url):
        if url == SOAP_ENC:
            url = os.path.join(CONTRACT, "soapenc.xsd")
        return super().load(url)


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: zeep_client.py URL OP N WARMUP_S WINDOW_S")
    url, op, n, warmup, window = sys.argv[1:]
    n = int(n)
    client = zeep.Client(WSDL, transport=LocalSchemas())
    service = client.create_service("{urn:test:soap}TestServiceSoap11Binding", url)
    want_string = ("abcdefghijklmnopqrstuvwxyz" * (n // 26 + 1))[:n]
    want_ints = list(range(n))

    def once():
        if op == "doNothing":
            service.doNothing()
            return None
        if op == "getStringOfSize":
            return None if service.getStringOfSize(n) == want_string else "wrong string"
        if op == "getIntegersOfSize":
            v = service.getIntegersOfSize(n)
            v = getattr(v, "_value_1", v)
            if v is None:
                v = []
            return None if [int(x) for x in v] == want_ints else "wrong integers"
        return f"unknown operation `{op}`"

    warm_end = time.perf_counter_ns() + int(float(warmup) * 1e9)
    end = warm_end + int(float(window) * 1e9)
    samples, ok, errors, first_error = [], 0, 0, None
    while True:
        t0 = time.perf_counter_ns()
        if t0 >= end and ok + errors > 0:
            break
        try:
            err = once()
        except Exception as e:  # a fault or a transport error is a failed call
            err = f"{type(e).__name__}: {e}"
        t1 = time.perf_counter_ns()
        if t0 < warm_end:
            continue
        if err is not None:
            errors += 1
            first_error = first_error or err
            continue
        ok += 1
        if len(samples) < MAX_SAMPLES:
            samples.append(round((t1 - t0) / 1000, 2))
    print(json.dumps({"ok": ok, "errors": errors, "first_error": first_error, "samples_us": samples}))


if __name__ == "__main__":
    main()
