// node-soap server for Davis & Parashar's TestService from the same WSDL soapstone serves
// (contract/dp.wsdl, rpc/encoded): the peer standing for a JavaScript SOAP server.
// `node server.js PORT [HOST]` listens on HOST:PORT/dp (default 127.0.0.1), and serves Ruby's
// echoFloat at /echo and the SOAPBuilders Round 2 base echoes at /round2; Node's http server
// (one event loop, keep-alive on).
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const soap = require('soap');

const MAX_SIZE = 100000;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

// node-soap keeps an element with xsi:type (as rpc/encoded requests have) as {attributes, $value}.
function checkSize(arg) {
  const n = arg !== null && typeof arg === 'object' && '$value' in arg ? arg.$value : arg;
  const v = Number(n);
  if (!Number.isInteger(v) || v < 0 || v > MAX_SIZE) {
    throw { Fault: { faultcode: 'soap:Client', faultstring: `size \`${n}\` is out of range \`0..=${MAX_SIZE}\`` } };
  }
  return v;
}

const service = {
  TestService: {
    TestServiceSoap11Port: {
      doNothing() {
        return {};
      },
      getStringOfSize(args) {
        const n = checkSize(args.n);
        return { return: ALPHABET.repeat(Math.floor(n / 26) + 1).slice(0, n) };
      },
      getIntegersOfSize(args) {
        const n = checkSize(args.n);
        return { return: { item: Array.from({ length: n }, (_, i) => i) } };
      },
    },
  },
};

// Sam Ruby's echoFloat (seed 002) at /echo, from contract/ruby-echo.wsdl (document/literal).
const echoService = {
  Echo: {
    EchoPort: {
      echoFloat(args) {
        const v = Number(args.input && typeof args.input === 'object' ? args.input.$value : args.input);
        if (!Number.isFinite(v)) {
          throw { Fault: { faultcode: 'soap:Client', faultstring: '`input` is not a float' } };
        }
        return { result: v };
      },
    },
  },
};

// The SOAPBuilders Round 2 base echoes at /round2, from contract/echo.wsdl (rpc/encoded).
// node-soap hands each argument over as parsed XML (an xsi:typed element as {attributes,
// $value}, an array as {attributes, item}); each echo returns the plain value under the WSDL's
// part name and lets node-soap write it from the WSDL.
function plain(v) {
  if (Array.isArray(v)) return v.map(plain);
  if (v === null || typeof v !== 'object') return v;
  if ('$value' in v) return v.$value;
  const out = {};
  for (const [k, x] of Object.entries(v)) if (k !== 'attributes') out[k] = plain(x);
  return out;
}
function items(v) {
  const p = plain(v);
  const list = p && p.item !== undefined ? p.item : [];
  return { item: Array.isArray(list) ? list : [list] };
}
const r2 = {};
for (const t of ['String', 'Integer', 'Float', 'Struct', 'Base64', 'Date', 'HexBinary', 'Decimal', 'Boolean']) {
  r2[`echo${t}`] = (args) => ({ [`output${t}`]: plain(args[`input${t}`]) });
}
for (const t of ['String', 'Integer', 'Float', 'Struct']) {
  r2[`echo${t}Array`] = (args) => ({ [`output${t}Array`]: items(args[`input${t}Array`]) });
}
r2.echoVoid = () => ({});
// Both ports of the WSDL (its SOAP 1.1 and 1.2 bindings) carry the same echoes.
const round2Service = { InteropTest: { InteropTestSoap11Port: r2, InteropTestSoap12Port: r2 } };

const port = Number(process.argv[2]);
const host = process.argv[3] || '127.0.0.1'; // the lab's emulated LAN passes its own
if (!port) {
  console.error('usage: node server.js PORT [HOST]');
  process.exit(2);
}
const wsdl = fs.readFileSync(path.join(__dirname, '..', 'contract', 'dp.wsdl'), 'utf8');
const server = http.createServer((req, res) => {
  res.statusCode = 404;
  res.end('not found\n');
});
// Bind only once node-soap has read the WSDL (asynchronously): a request that came earlier
// would get the 404 handler, and the lab takes an open port for a ready server.
soap.listen(server, {
  path: '/dp',
  services: service,
  xml: wsdl,
  uri: path.join(__dirname, '..', 'contract', 'dp.wsdl'),
  callback: (err) => {
    if (err) {
      console.error(`the WSDL does not load: ${err}`);
      process.exit(1);
    }
    const echoWsdl = path.join(__dirname, '..', 'contract', 'ruby-echo.wsdl');
    soap.listen(server, {
      path: '/echo',
      services: echoService,
      xml: fs.readFileSync(echoWsdl, 'utf8'),
      uri: echoWsdl,
      callback: (err2) => {
        if (err2) {
          console.error(`the echo WSDL does not load: ${err2}`);
          process.exit(1);
        }
        const r2Wsdl = path.join(__dirname, '..', 'contract', 'echo.wsdl');
        soap.listen(server, {
          path: '/round2',
          services: round2Service,
          xml: fs.readFileSync(r2Wsdl, 'utf8'),
          uri: r2Wsdl,
          callback: (err3) => {
            if (err3) {
              console.error(`the Round 2 WSDL does not load: ${err3}`);
              process.exit(1);
            }
            server.listen(port, host, () => console.log(`listening on http://${host}:${port}/dp`));
          },
        });
      },
    });
  },
});
