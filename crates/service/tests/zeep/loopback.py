"""A zeep transport that refuses everything but loopback, so tests prove offline use."""

import ipaddress
from urllib.parse import urlparse

from zeep.transports import Transport


def is_loopback(url):
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


SOAP_ENC = "http://schemas.xmlsoap.org/soap/encoding/"


class LoopbackOnly(Transport):
    """Fails any fetch or post to a non-loopback URL (and any local file).

    zeep resolves the names inside the SOAP encoding schema by fetching its canonical URL
    even after loading it from the WSDL's schemaLocation (it does not count a schema's own
    namespace as imported). `soapenc` maps that one URL to the copy the service serves
    (`<endpoint>?xsd=soapenc`), which is what an offline zeep user does with a transport or
    a cache. WSDLs without SOAP-ENC arrays never reference that schema at all.
    """

    def __init__(self, soapenc=None):
        super().__init__(timeout=10, operation_timeout=10)
        self.soapenc = soapenc
        self.fetched = []

    def _check(self, url):
        if not is_loopback(url):
            raise RuntimeError(f"refusing to reach non-loopback `{url}`")

    def load(self, url):
        if url == SOAP_ENC and self.soapenc:
            url = self.soapenc
        self._check(url)
        self.fetched.append(url)
        return super().load(url)

    def post(self, address, message, headers):
        self._check(address)
        return super().post(address, message, headers)

    def get(self, address, params, headers):
        self._check(address)
        return super().get(address, params, headers)
