"""Prints, as JSON, the operations zeep finds in each WSDL given on the command line.

For each file: {"file": path, "services": {service: {port: [operation, ...]}}} or
{"file": path, "error": message}. Offline: the SOAP 1.1 encoding schema is served from
soapstone's bundled copy (argv[1]); any other URL is refused, as soapstone refuses it.
"""
import json
import sys

import zeep
from zeep.transports import Transport

SOAP_ENC = "http://schemas.xmlsoap.org/soap/encoding/"


class Offline(Transport):
    def __init__(self, soapenc):
        super().__init__()
        self.soapenc = soapenc

    def load(self, url):
        if url.rstrip("/") == SOAP_ENC.rstrip("/"):
            with open(self.soapenc, "rb") as f:
                return f.read()
        if url.startswith("http://") or url.startswith("https://"):
            raise IOError("offline: %s" % url)
        return super().load(url)


def main():
    soapenc = sys.argv[1]
    out = []
    for path in sys.argv[2:]:
        try:
            settings = zeep.Settings(strict=False)
            client = zeep.Client(path, transport=Offline(soapenc), settings=settings)
            services = {}
            for service in client.wsdl.services.values():
                ports = {}
                for port in service.ports.values():
                    ports[port.name] = sorted(port.binding._operations.keys())
                services[service.name] = ports
            out.append({"file": path, "services": services})
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            out.append({"file": path, "error": "%s: %s" % (type(e).__name__, e)})
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
