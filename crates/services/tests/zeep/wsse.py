"""zeep's WS-Security UsernameToken (text, then digest) over https against the charging
service; then a wrong password, which must come back as a fault. Prints one JSON line.

Usage: wsse.py https://localhost:PORT/charging CA_PEM
"""
import json
import sys

import requests
from zeep import Client
from zeep.exceptions import Fault
from zeep.transports import Transport
from zeep.wsse.username import UsernameToken

url, ca = sys.argv[1], sys.argv[2]
session = requests.Session()
session.verify = ca
# requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override session.verify: not here.
session.trust_env = False


def client(token):
    return Client(url + "?wsdl", wsse=token, transport=Transport(session=session))


out = {}
text = client(UsernameToken("operator", "operator-text"))
out["text_cn"] = text.service.credit(3, 10)
out["text_balance"] = text.service.creditControl(3)
digest = client(UsernameToken("operator", "operator-digest", use_digest=True))
out["digest_cn"] = digest.service.credit(3, 20)
out["digest_balance"] = digest.service.creditControl(3)
wrong = client(UsernameToken("operator", "not-the-password", use_digest=True))
try:
    wrong.service.credit(3, 1000)
    out["wrong"] = "accepted"
except Fault as f:
    out["wrong"] = {"code": str(f.code), "message": f.message}
print(json.dumps(out))
