"""zeep builds clients from the WSDLs soapstone serves and calls every operation.

Usage: python3 echo_client.py LITERAL_WSDL_URL ENCODED_WSDL_URL CHARGING_WSDL_URL

Driven by crates/service/tests/zeep.rs against a real soapstone server on loopback. The
transport refuses every non-loopback URL, so this also proves the WSDLs work offline. Exits
non-zero on the first failed check, printing what was sent and received.
"""

import datetime
import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zeep  # noqa: E402
from lxml import etree  # noqa: E402
from zeep.plugins import HistoryPlugin  # noqa: E402

from loopback import LoopbackOnly  # noqa: E402

history = HistoryPlugin()
checks = 0


def fail(what, detail):
    print(f"FAILED {what}: {detail}")
    for kind in ("last_sent", "last_received"):
        try:
            print(kind, etree.tostring(getattr(history, kind)["envelope"]).decode())
        except Exception:  # noqa: BLE001 - nothing was exchanged yet
            pass
    sys.exit(1)


def check(what, call, want, normalize=lambda r: r):
    global checks
    try:
        got = normalize(call())
    except Exception as e:  # noqa: BLE001 - report any zeep or fault error
        fail(what, f"{type(e).__name__}: {e}")
    if got != want:
        fail(what, f"got {got!r}, want {want!r}")
    checks += 1


def check_fault(what, call, reason):
    global checks
    try:
        call()
    except zeep.exceptions.Fault as f:
        if f.message != reason:
            fail(what, f"fault reason {f.message!r}, want {reason!r}")
        checks += 1
        return
    except Exception as e:  # noqa: BLE001
        fail(what, f"{type(e).__name__}: {e}")
    fail(what, "no fault")


def plain(obj):
    """zeep objects to plain dicts/lists for comparison."""
    return zeep.helpers.serialize_object(obj, dict)


def common(s, tag):
    for text in ["Hello World", "<&> \"quoted\" 'single'", "ünï©ødé ∑"]:
        check(f"{tag} echoString {text!r}", lambda: s.echoString(text), text)
    for v in [0, -1, 2147483647, -2147483648]:
        check(f"{tag} echoInt {v}", lambda: s.echoInt(v), v)
    check(f"{tag} echoLong", lambda: s.echoLong(-9223372036854775808), -9223372036854775808)
    check(f"{tag} echoByte", lambda: s.echoByte(-128), -128)
    check(f"{tag} echoShort", lambda: s.echoShort(32767), 32767)
    check(f"{tag} echoUnsignedLong", lambda: s.echoUnsignedLong(18446744073709551615), 18446744073709551615)
    check(f"{tag} echoUnsignedByte", lambda: s.echoUnsignedByte(255), 255)
    check(f"{tag} echoFloat", lambda: s.echoFloat(654.321), 654.321, lambda r: round(r, 3))
    check(f"{tag} echoDouble", lambda: s.echoDouble(0.1), 0.1)
    for b in [True, False]:
        check(f"{tag} echoBoolean {b}", lambda: s.echoBoolean(b), b)
    st = {"varString": "Hello", "varInt": 7, "varFloat": 2.5}
    check(f"{tag} echoStruct", lambda: s.echoStruct(st), st, plain)
    check(f"{tag} echoColor", lambda: s.echoColor("deep-blue"), "deep-blue")
    when = datetime.datetime(2001, 4, 18, 2, 14, 58, tzinfo=datetime.timezone.utc)
    check(f"{tag} echoDateTime", lambda: s.echoDateTime(when), when)
    check(f"{tag} echoBase64", lambda: s.echoBase64(b"\x00\x01\xfe\xff"), b"\x00\x01\xfe\xff")
    dec = decimal.Decimal("-1234567890.000000001")
    check(f"{tag} echoDecimal", lambda: s.echoDecimal(dec), dec)
    check(f"{tag} echoVoid", lambda: s.echoVoid(), None)
    check(f"{tag} echoFloatRuby", lambda: s.echoFloatRuby(3.14159), 3.14159, lambda r: round(r, 5))
    check_fault(f"{tag} fail", lambda: s.fail("boom `x`"), "boom `x`")


def literal(client, port):
    s = client.bind("EchoLiteral", port)
    tag = f"literal {port}"
    common(s, tag)
    st = {"varString": "Hello", "varInt": 7, "varFloat": 2.5}
    for n in [0, 1, 3]:
        check(f"{tag} echoStructArray {n}", lambda: s.echoStructArray([st] * n), [st] * n, plain)
        check(f"{tag} echoIntegerArray {n}", lambda: s.echoIntegerArray(list(range(n))), list(range(n)))
        strings = [f"s{i}" for i in range(n)]
        check(f"{tag} echoStringArray {n}", lambda: s.echoStringArray(strings), strings)
    grid = [{"item": ["a", "b"]}, {"item": ["c", "d"]}]
    check(f"{tag} echo2dStringArray", lambda: s.echo2dStringArray(grid), grid, plain)
    check(f"{tag} echoOptional None", lambda: s.echoOptional(None), None)
    check(f"{tag} echoOptional", lambda: s.echoOptional("x"), "x")
    values = {
        "dateTime": datetime.datetime(2001, 4, 18, 2, 14, 58, tzinfo=datetime.timezone.utc),
        "date": datetime.date(2008, 2, 29),
        "time": datetime.time(23, 59, 59),
        "decimal": decimal.Decimal("1.5"),
        "base64": b"ab",
        "hex": b"DEAD",
        "uri": "http://example.org/a?b=c&d",
        "qname": etree.QName("urn:q", "local"),
    }
    got = plain(s.echoValues(values))
    for k, v in values.items():
        want = v.text if isinstance(v, etree.QName) else v
        have = got[k].text if isinstance(got[k], etree.QName) else got[k]
        if k == "qname" and isinstance(have, str) and ":" in have:
            # zeep hands back the lexical QName: resolve its prefix where it was received
            node = history.last_received["envelope"].find(".//{*}qname")
            prefix, local = have.split(":", 1)
            have = etree.QName(node.nsmap[prefix], local).text
        if k == "hex":  # zeep gives and takes the lexical form
            have = have.decode() if isinstance(have, bytes) else have
            want = want.decode()
        if have != want:
            fail(f"{tag} echoValues {k}", f"got {have!r}, want {want!r}")
    everything = {
        "byte": -1, "short": 2, "int": 3, "long": 4, "ubyte": 5, "ushort": 6, "uint": 7,
        "ulong": 8, "float": 1.5, "double": 2.5, "boolean": True, "text": "t", "maybe": None,
        "ints": [1, 2], "color": "Red", "structs": [st], "child": None, "values": None,
    }
    check(f"{tag} echoEverything", lambda: s.echoEverything(everything), everything, plain)


def encoded(client, port):
    s = client.bind("EchoEncoded", port)
    tag = f"encoded {port}"
    common(s, tag)
    # zeep sends SOAP-ENC arrays through the typed constructor (no arrayType attribute, so
    # no 2-D arrays) and cannot send an empty one; it reads items back as lxml elements
    # when they carry no xsi:type.
    texts = lambda r: [e.text if isinstance(e, etree._Element) else e for e in r]  # noqa: E731
    ints = client.get_type("ns0:ArrayOfint")
    strings = client.get_type("ns0:ArrayOfstring")
    structs = client.get_type("ns0:ArrayOfSoapStruct")
    check(f"{tag} echoIntegerArray", lambda: s.echoIntegerArray(ints([1, -2, 3])), ["1", "-2", "3"],
          lambda r: [str(x) for x in texts(r)])
    check(f"{tag} echoStringArray", lambda: s.echoStringArray(strings(["a", "b<"])), ["a", "b<"], texts)
    st = {"varString": "Hello", "varInt": 7, "varFloat": 2.5}
    def struct_texts(r):
        out = []
        for e in r:
            if isinstance(e, etree._Element):
                out.append({etree.QName(c).localname: c.text for c in e})
            else:
                out.append({k: str(v) for k, v in plain(e).items()})
        return out

    want = [{k: str(v) for k, v in st.items()}] * 2
    check(f"{tag} echoStructArray", lambda: s.echoStructArray(structs([st, st])), want, struct_texts)
    check(f"{tag} echoOptional", lambda: s.echoOptional("x"), "x")


def charging(url):
    # No SOAP-ENC arrays, so the WSDL imports nothing and zeep needs no schema mapping.
    transport = LoopbackOnly()
    client = zeep.Client(url, transport=transport, plugins=[history])
    for port in ["ChargingSoap11Port", "ChargingSoap12Port"]:
        s = client.bind("Charging", port)
        check(f"charging {port} reserve", lambda: s.reserve(id=2, am=520), 20520)
        check(f"charging {port} releaseRes", lambda: s.releaseRes(res=12418), True)
        check(f"charging {port} creditControl", lambda: s.creditControl(id=6), 600)
        check_fault(f"charging {port} creditControl fault", lambda: s.creditControl(id=-1), "no account `-1`")
    if transport.fetched != [url]:
        fail("charging offline", f"fetched {transport.fetched}")


def main():
    literal_url, encoded_url, charging_url = sys.argv[1], sys.argv[2], sys.argv[3]
    charging(charging_url)
    transport = LoopbackOnly()
    client = zeep.Client(literal_url, transport=transport, plugins=[history])
    for port in ["EchoLiteralSoap11Port", "EchoLiteralSoap12Port"]:
        literal(client, port)
    soapenc = encoded_url.replace("?wsdl", "?xsd=soapenc")
    transport = LoopbackOnly(soapenc=soapenc)
    client = zeep.Client(encoded_url, transport=transport, plugins=[history])
    for port in ["EchoEncodedSoap11Port", "EchoEncodedSoap12Port"]:
        encoded(client, port)
    print(f"zeep: {checks} checks ok; fetched {' '.join(sorted(set(transport.fetched)))}")


if __name__ == "__main__":
    main()
