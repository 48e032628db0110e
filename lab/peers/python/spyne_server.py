"""spyne server for Davis & Parashar's TestService (urn:test:soap), the peer standing for a
Python SOAP server, Ruby's echoFloat at /echo, and the SOAPBuilders Round 2 base echoes
(http://soapinterop.org/) at /round2. `python spyne_server.py PORT [HOST]` serves it
on HOST:PORT/dp (default 127.0.0.1; PORT 0 picks a free port, named on the `listening on`
line it prints once it listens) with the
standard library's single-threaded WSGI server (wsgiref; HTTP/1.0 semantics, a connection per
call).

spyne writes document/literal only: it reads the lab's rpc/encoded request (element name
`getStringOfSize`, child `n`; xsi:type is ignored) and answers with literal elements in the same
namespace. Its own WSDL is document/literal, not the rpc/encoded contract/dp.wsdl.

The Round 2 echoes are document/literal wrapped too: the lab sends the recorded requests in their
literal form (no xsi:type, no SOAP-ENC arrays; a wrapper element per operation, parts
unqualified, arrays as repeated `item`), which spyne reads by local name, and spyne's own types
decode every value (Unicode, Integer, Float, Decimal, DateTime, Boolean, ByteArray as base64 or
hex, Array, a SOAPStruct ComplexModel; hexBinary is decoded by hand on the way in, see
`echoHexBinary`): each echo returns its argument as spyne decoded it. A
value spyne cannot decode is spyne's own Client fault.
"""

import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

from spyne import (
    Application,
    Array,
    Boolean,
    ByteArray,
    ComplexModel,
    DateTime,
    Decimal,
    Float,
    Integer,
    Iterable,
    ServiceBase,
    String,
    rpc,
)
from spyne.error import ArgumentError
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

MAX_SIZE = 100000
ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def check_size(n):
    if n is None or n < 0 or n > MAX_SIZE:
        raise ArgumentError(f"size `{n}` is out of range `0..={MAX_SIZE}`")
    return n


class TestService(ServiceBase):
    @rpc()
    def doNothing(ctx):
        return None

    @rpc(Integer, _returns=String)
    def getStringOfSize(ctx, n):
        n = check_size(n)
        return (ALPHABET * (n // 26 + 1))[:n]

    @rpc(Integer, _returns=Iterable(Integer))
    def getIntegersOfSize(ctx, n):
        return range(check_size(n))


class EchoService(ServiceBase):
    """Sam Ruby's echoFloat (seed 002) in http://tempuri.org/, at /echo."""

    @rpc(Float, _returns=Float)
    def echoFloat(ctx, input):
        if input is None:
            raise ArgumentError("`input` is not a float")
        return input


class SOAPStruct(ComplexModel):
    """Round 2's `SOAPStruct` (http://soapinterop.org/xsd)."""

    __namespace__ = "http://soapinterop.org/xsd"
    varString = String
    varInt = Integer
    varFloat = Float


def present(value, part):
    if value is None:
        raise ArgumentError(f"`{part}` is missing")
    return value


class InteropService(ServiceBase):
    """The fourteen Round 2 base echoes in http://soapinterop.org/, at /round2."""

    @rpc(String, _returns=String)
    def echoString(ctx, inputString):
        return present(inputString, "inputString")

    @rpc(Array(String), _returns=Array(String))
    def echoStringArray(ctx, inputStringArray):
        return present(inputStringArray, "inputStringArray")

    @rpc(Integer, _returns=Integer)
    def echoInteger(ctx, inputInteger):
        return present(inputInteger, "inputInteger")

    @rpc(Array(Integer), _returns=Array(Integer))
    def echoIntegerArray(ctx, inputIntegerArray):
        return present(inputIntegerArray, "inputIntegerArray")

    @rpc(Float, _returns=Float)
    def echoFloat(ctx, inputFloat):
        return present(inputFloat, "inputFloat")

    @rpc(Array(Float), _returns=Array(Float))
    def echoFloatArray(ctx, inputFloatArray):
        return present(inputFloatArray, "inputFloatArray")

    @rpc(SOAPStruct, _returns=SOAPStruct)
    def echoStruct(ctx, inputStruct):
        return present(inputStruct, "inputStruct")

    @rpc(Array(SOAPStruct), _returns=Array(SOAPStruct))
    def echoStructArray(ctx, inputStructArray):
        return present(inputStructArray, "inputStructArray")

    @rpc()
    def echoVoid(ctx):
        return None

    @rpc(ByteArray(encoding="base64"), _returns=ByteArray(encoding="base64"))
    def echoBase64(ctx, inputBase64):
        return present(inputBase64, "inputBase64")

    @rpc(DateTime, _returns=DateTime)
    def echoDate(ctx, inputDate):
        return present(inputDate, "inputDate")

    # spyne 2.14's hex decoder fails on Python 3 (it joins the element's str text as bytes: a
    # TypeError and an HTTP 500), so the digits arrive as a string, are decoded here, and spyne
    # encodes the bytes back as hexBinary.
    @rpc(String, _returns=ByteArray(encoding="hex"))
    def echoHexBinary(ctx, inputHexBinary):
        digits = present(inputHexBinary, "inputHexBinary").strip()
        try:
            return [bytes.fromhex(digits)]
        except ValueError:
            raise ArgumentError(f"hexBinary `{digits}` is not hex") from None

    @rpc(Decimal, _returns=Decimal)
    def echoDecimal(ctx, inputDecimal):
        return present(inputDecimal, "inputDecimal")

    @rpc(Boolean, _returns=Boolean)
    def echoBoolean(ctx, inputBoolean):
        return present(inputBoolean, "inputBoolean")


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: spyne_server.py PORT [HOST]")
    port = int(sys.argv[1])
    host = sys.argv[2] if len(sys.argv) == 3 else "127.0.0.1"  # the lab's emulated LAN passes its own
    app = Application(
        [TestService],
        tns="urn:test:soap",
        in_protocol=Soap11(validator=None),
        out_protocol=Soap11(),
    )
    wsgi = WsgiApplication(app)
    echo = WsgiApplication(
        Application(
            [EchoService],
            tns="http://tempuri.org/",
            in_protocol=Soap11(validator=None),
            out_protocol=Soap11(),
        )
    )
    interop = WsgiApplication(
        Application(
            [InteropService],
            tns="http://soapinterop.org/",
            in_protocol=Soap11(validator=None),
            out_protocol=Soap11(),
        )
    )

    def route(environ, start_response):
        path = environ.get("PATH_INFO")
        if path == "/dp":
            return wsgi(environ, start_response)
        if path == "/echo":
            return echo(environ, start_response)
        if path == "/round2":
            return interop(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]

    server = make_server(host, port, route, handler_class=QuietHandler)
    # The bound port, not the asked one: with PORT 0 the caller learns it here.
    print(f"listening on http://{host}:{server.server_port}/dp", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
