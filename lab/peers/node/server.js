// node-soap server for Davis & Parashar's TestService from the same WSDL soapstone serves
// (contract/dp.wsdl, rpc/encoded): the peer standing for a JavaScript SOAP server.
// `node server.js PORT [HOST]` listens on HOST:PORT/dp (default 127.0.0.1), and serves Ruby's
// echoFloat at /echo; Node's http server (one event loop,
// keep-alive on).
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
        server.listen(port, host, () => console.log(`listening on http://${host}:${port}/dp`));
      },
    });
  },
});
