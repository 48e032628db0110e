"""Builds a zeep client from every WSDL `soapstone serve` publishes and calls every operation.

Usage: call_all.py BASE_URL   (e.g. http://127.0.0.1:8080)

Offline: a transport that refuses anything but loopback (zeep's one canonical fetch, the SOAP
encoding schema, is answered by the copy the service serves at `?xsd=soapenc`). Checks each
answer, and prints one JSON object: {"calls": {service: [operations called]}}; exits non-zero
on the first wrong answer, with the reason.
"""

import datetime
import decimal
import ipaddress
import json
import sys
from urllib.parse import urlparse

import zeep
from zeep import xsd
from zeep.transports import Transport

SOAP_ENC = "http://schemas.xmlsoap.org/soap/encoding/"


def is_loopback(url):
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LoopbackOnly(Transport):
    def __init__(self, soapenc):
        super().__init__(timeout=30, operation_timeout=30)
        self.soapenc = soapenc

    def _check(self, url):
        if not is_loopback(url):
            raise RuntimeError(f"refusing to reach non-loopback `{url}`")

    def load(self, url):
        if url == SOAP_ENC:
            url = self.soapenc
        self._check(url)
        return super().load(url)

    def post(self, address, message, headers):
        self._check(address)
        return super().post(address, message, headers)


BASE = sys.argv[1].rstrip("/")
CALLS = {}


def client(path, query="wsdl"):
    url = f"{BASE}{path}?{query}"
    c = zeep.Client(url, transport=LoopbackOnly(f"{BASE}{path}?xsd=soapenc"))
    return c


def call(c, name, op, *args, **kwargs):
    CALLS.setdefault(name, []).append(op)
    return getattr(c.service, op)(*args, **kwargs)


def array(c, type_name, values, item_type=None, dims=None):
    """A SOAP-ENC array argument: zeep types its items as `xsd:any`, so each value goes in an
    explicit `item` element of the item type (the usual zeep idiom for rpc/encoded arrays). A
    multi-dimensional array also needs its `SOAP-ENC:arrayType`, which only zeep's compound
    form of the array type carries."""
    item = xsd.Element("item", item_type or xsd.String())
    elements = [item(**v) if isinstance(v, dict) else item(v) for v in values]
    array_type = c.get_type(type_name)
    if dims:
        return array_type._value_class(_value_1=elements, arrayType=f"xsd:string[{dims}]")
    return array_type(elements)


def check(what, got, want):
    if got != want:
        raise SystemExit(f"{what}: got {got!r}, want {want!r}")


def charging():
    c, n = client("/charging"), "Charging"
    b = call(c, n, "creditControl", 5)
    cn = call(c, n, "credit", 5, 100)
    call(c, n, "confirmAction", cn)
    call(c, n, "directDebit", 5, 30)
    res = call(c, n, "reserve", 5, 50)
    check("balance with a reservation", call(c, n, "creditControl", 5), b + 100 - 30 - 50)
    call(c, n, "debitReservation", 5, 20, res)
    res2 = call(c, n, "reserve", 5, 10)
    call(c, n, "releaseRes", res2)
    check("balance", call(c, n, "creditControl", 5), b + 100 - 30 - 20)
    try:
        call(c, n, "reserve", 5, 2_000_000_000)
        raise SystemExit("reserve beyond the balance succeeded")
    except zeep.exceptions.Fault as f:
        check("fault", f.message.startswith("insufficient funds: account `5`"), True)


def dp():
    c, n = client("/dp"), "TestService"
    call(c, n, "doNothing")
    call(c, n, "setSize", 10)
    check("getString", call(c, n, "getString"), "abcdefghij")
    check("getIntegers", call(c, n, "getIntegers"), list(range(10)))
    check("getStringOfSize", call(c, n, "getStringOfSize", 3), "abc")
    check("getIntegersOfSize", call(c, n, "getIntegersOfSize", 4), [0, 1, 2, 3])


def echo_base():
    c, n = client("/echo"), "InteropTest"
    check("echoString", call(c, n, "echoString", "Hello <&> World"), "Hello <&> World")
    strings = array(c, "ns0:ArrayOfstring", ["a", "b"])
    check("echoStringArray", call(c, n, "echoStringArray", strings), ["a", "b"])
    check("echoInteger", call(c, n, "echoInteger", 42), 42)
    ints = array(c, "ns0:ArrayOfint", [1, 2, 3], xsd.Int())
    check("echoIntegerArray", call(c, n, "echoIntegerArray", ints), [1, 2, 3])
    check("echoFloat", call(c, n, "echoFloat", 1.5), 1.5)
    floats = array(c, "ns0:ArrayOffloat", [1.5, -2.25], xsd.Float())
    check("echoFloatArray", call(c, n, "echoFloatArray", floats), [1.5, -2.25])
    st = {"varString": "arg", "varInt": 34, "varFloat": 0.5}
    r = call(c, n, "echoStruct", st)
    check("echoStruct", (r.varString, r.varInt, r.varFloat), ("arg", 34, 0.5))
    structs = array(c, "ns0:ArrayOfSOAPStruct", [st, st], c.get_type("ns0:SOAPStruct"))
    r = call(c, n, "echoStructArray", structs)
    check("echoStructArray", [(x.varString, x.varInt, x.varFloat) for x in r], [("arg", 34, 0.5)] * 2)
    call(c, n, "echoVoid")
    check("echoBase64", call(c, n, "echoBase64", b"Nebraska"), b"Nebraska")
    when = datetime.datetime(2001, 5, 24, 17, 31, 41, tzinfo=datetime.timezone.utc)
    check("echoDate", call(c, n, "echoDate", when), when)
    # zeep leaves hexBinary in its lexical form both ways.
    check("echoHexBinary", call(c, n, "echoHexBinary", "01ff").lower(), "01ff")
    check("echoDecimal", call(c, n, "echoDecimal", decimal.Decimal("12345.67890")), decimal.Decimal("12345.67890"))
    check("echoBoolean", call(c, n, "echoBoolean", True), True)


def echo_group_b():
    c, n = client("/echo", "wsdl=groupB"), "InteropTestB"
    st = {"varString": "arg", "varInt": 34, "varFloat": 0.5}
    r = call(c, n, "echoStructAsSimpleTypes", st)
    check("echoStructAsSimpleTypes", (r.outputString, r.outputInteger, r.outputFloat), ("arg", 34, 0.5))
    r = call(c, n, "echoSimpleTypesAsStruct", "arg", 34, 0.5)
    check("echoSimpleTypesAsStruct", (r.varString, r.varInt, r.varFloat), ("arg", 34, 0.5))
    grid = array(c, "ns0:ArrayOfstring2D", ["r0c0", "r0c1", "r1c0", "r1c1"], dims="2,2")
    r = call(c, n, "echo2DStringArray", grid)
    check("echo2DStringArray", r, ["r0c0", "r0c1", "r1c0", "r1c1"])
    r = call(c, n, "echoNestedStruct", dict(st, varStruct=st))
    check("echoNestedStruct", (r.varString, r.varStruct.varInt), ("arg", 34))
    colors = array(c, "ns0:ArrayOfstring", ["red", "blue"])
    r = call(c, n, "echoNestedArray", dict(st, varArray=colors))
    check("echoNestedArray", r.varArray, ["red", "blue"])


def echo_tempuri():
    c, n = client("/echo", "wsdl=tempuri"), "EchoFloat"
    check("echoFloat", round(call(c, n, "echoFloat", input=3.14159), 5), 3.14159)


def contacts():
    c, n = client("/contacts"), "Contacts"
    check("getContactCount", call(c, n, "getContactCount"), 13000)
    names = call(c, n, "getContactNames", 3)
    check("getContactNames", len(names), 3)
    rows = call(c, n, "getContacts", 2)
    check("getContacts", [r.name for r in rows], list(names[:2]))
    one = call(c, n, "getContact", 1)
    check("getContact", (one.name, one.phone), (rows[1].name, rows[1].phone))


def wsb():
    c, n = client("/wsb/card"), "CardService"
    args = dict(account="4111111111111111", holder="Ada Lovelace", userId="u-1", amount=120.5, currency="EUR", expiry="2009-06")
    check("authorize", call(c, n, "authorize", **args), True)
    check("authorize (bad card)", call(c, n, "authorize", **dict(args, account="4111111111111112")), False)
    c, n = client("/wsb/news"), "NewsService"
    sources = call(c, n, "getSources")
    check("getSources", len(sources), 16)
    heads = call(c, n, "getHeadlines", **{"from": "2008-03-01", "to": "2008-03-02", "sources": sources[:2]})
    check("getHeadlines", len(heads) >= 2 * 2 * 8 and heads[0].source == sources[0], True)
    c, n = client("/wsb/shop"), "ShopService"
    offers = call(c, n, "findOffers", productKey="SKU-0042-XL", properties=[{"name": "color", "value": "red"}], expires="2008-06-30")
    check("findOffers", len(offers) > 0 and all(o.productKey == "SKU-0042-XL" for o in offers), True)


for part in [charging, dp, echo_base, echo_group_b, echo_tempuri, contacts, wsb]:
    try:
        part()
    except SystemExit:
        raise
    except Exception as e:  # report which part failed, with zeep's message
        raise SystemExit(f"{part.__name__}: {type(e).__name__}: {e}")

print(json.dumps({"calls": CALLS}))
