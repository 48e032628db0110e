"""spyne server for Davis & Parashar's TestService (urn:test:soap), the peer standing for a
Python SOAP server, and Ruby's echoFloat at /echo. `python spyne_server.py PORT [HOST]` serves it
on HOST:PORT/dp (default 127.0.0.1) with the
standard library's single-threaded WSGI server (wsgiref; HTTP/1.0 semantics, a connection per
call).

spyne writes document/literal only: it reads the lab's rpc/encoded request (element name
`getStringOfSize`, child `n`; xsi:type is ignored) and answers with literal elements in the same
namespace. Its own WSDL is document/literal, not the rpc/encoded contract/dp.wsdl.
"""

import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

from spyne import Application, Float, Integer, Iterable, ServiceBase, String, rpc
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

    def route(environ, start_response):
        path = environ.get("PATH_INFO")
        if path == "/dp":
            return wsgi(environ, start_response)
        if path == "/echo":
            return echo(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]

    server = make_server(host, port, route, handler_class=QuietHandler)
    print(f"listening on http://{host}:{port}/dp", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
