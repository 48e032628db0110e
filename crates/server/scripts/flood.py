#!/usr/bin/env python3
"""How long a new client waits for an echoFloat while a flood of idle connections is open
(issue 8, item 2). Bounded: ROUNDS floods of CONNS connections, one every EVERY seconds,
every socket closed at the end; between floods a new client sends one echoFloat every 0.5 s
(and gives up after 30 s).

    ulimit -n 20000   # the flood needs a descriptor per connection, here and in the server
    target/release/soapstone serve --services echo --addr 127.0.0.1:8099 &
    crates/server/scripts/flood.py 127.0.0.1:8099 --conns 5000 --rounds 3 --every 10

The flood comes from 127.0.0.1; the client connects from 127.0.0.1 (the flooder's own
address) and from 127.0.0.2 (another address), in turn. Prints one line per client, then
the median and worst wait per address. Only targets 127.0.0.0/8.
"""
import argparse
import errno
import select
import socket
import sys
import time

BODY = (
    '<?xml version="1.0"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" '
    'xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">\n'
    '<soap:Body>\n<echoFloat xmlns="http://soapinterop.org/">\n<inputFloat xsi:type="xsd:float">3.14159</inputFloat>\n'
    "</echoFloat>\n</soap:Body>\n</soap:Envelope>"
)
CLIENT_TIMEOUT = 30.0
PROBE = 0.5


def flood(host, port, n):
    """Starts n connections as fast as possible and holds them (the kernel retries the SYNs
    that a full accept queue drops); returns the sockets and the time it took."""
    socks = []
    t = time.monotonic()
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex((host, port))
        if err not in (0, errno.EINPROGRESS):
            s.close()
            print(f"flood: connect failed after {len(socks)}: {errno.errorcode.get(err, err)}", file=sys.stderr)
            break
        socks.append(s)
    return socks, time.monotonic() - t


def client(host, port, path, source):
    """Seconds from connect to the whole answer of one echoFloat, and the status line."""
    req = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: text/xml; charset=utf-8\r\n"
        f'SOAPAction: "http://soapinterop.org/"\r\nContent-Length: {len(BODY)}\r\n\r\n{BODY}'
    ).encode()
    t = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=CLIENT_TIMEOUT, source_address=(source, 0))
        s.settimeout(max(0.1, CLIENT_TIMEOUT - (time.monotonic() - t)))
        s.sendall(req)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return time.monotonic() - t, "closed before an answer"
            buf += chunk
        head, rest = buf.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
        s.close()
        return time.monotonic() - t, head.split(b"\r\n")[0].decode()
    except OSError as e:
        return time.monotonic() - t, f"error: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("addr", help="HOST:PORT of the server (127.0.0.0/8 only)")
    ap.add_argument("--conns", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--every", type=float, default=10.0, help="seconds between floods")
    ap.add_argument("--path", default="/echo")
    a = ap.parse_args()
    host, port = a.addr.rsplit(":", 1)
    port = int(port)
    if not host.startswith("127."):
        sys.exit("flood.py only targets 127.0.0.0/8")
    if a.conns > 100_000 or a.rounds > 20:
        sys.exit("at most 100000 connections and 20 rounds")
    waits = []
    held = []
    for r in range(a.rounds):
        start = time.monotonic()
        socks, took = flood(host, port, a.conns)
        held.append(socks)
        print(f"round {r}: {len(socks)} connections started in {took:.2f} s", flush=True)
        # a new client every PROBE s until the next flood, alternating source addresses
        k = 0
        while time.monotonic() - start < a.every:
            source = ("127.0.0.1", "127.0.0.2")[k % 2]
            at = time.monotonic() - start
            secs, status = client(host, port, a.path, source)
            waits.append((secs, source))
            print(f"  +{at:5.2f} s client from {source}: {secs * 1000:8.1f} ms ({status})", flush=True)
            k += 1
            time.sleep(PROBE)
    for socks in held:
        for s in socks:
            s.close()
    for source in ("127.0.0.1", "127.0.0.2"):
        w = sorted(secs for secs, src in waits if src == source)
        if w:
            print(f"client from {source}: {len(w)} probes, median {w[len(w) // 2] * 1000:.1f} ms, worst {w[-1] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
