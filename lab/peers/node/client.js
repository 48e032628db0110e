// node-soap client from contract/dp.wsdl, speaking the lab's peer-client protocol (docs/lab.md):
//   node client.js URL OP N WARMUP_S WINDOW_S
// calls OP one at a time for WARMUP_S seconds (not recorded), then WINDOW_S seconds, checks
// every answer and prints one JSON line {"ok","errors","first_error","samples_us"}.
'use strict';
const path = require('path');
const http = require('http');
const soap = require('soap');

const MAX_SAMPLES = 1000000;

async function main() {
  if (process.argv.length !== 7) {
    console.error('usage: node client.js URL OP N WARMUP_S WINDOW_S');
    process.exit(2);
  }
  const [url, op, nArg, warmup, window] = process.argv.slice(2);
  const n = Number(nArg);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const client = await soap.createClientAsync(path.join(__dirname, '..', 'contract', 'dp.wsdl'), {
    endpoint: url,
    wsdl_options: {},
  });
  client.setEndpoint(url);
  const opts = { httpAgent: agent };
  const want = 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.floor(n / 26) + 1).slice(0, n);

  // node-soap keeps an element with xsi:type as {attributes, $value}.
  const text = (v) => (v !== null && typeof v === 'object' && '$value' in v ? v.$value : v);

  async function once() {
    if (op === 'doNothing') {
      await client.doNothingAsync(null, opts);
      return null;
    }
    if (op === 'getStringOfSize') {
      const [r] = await client.getStringOfSizeAsync({ n }, opts);
      return r && text(r.return) === want ? null : 'wrong string';
    }
    if (op === 'getIntegersOfSize') {
      const [r] = await client.getIntegersOfSizeAsync({ n }, opts);
      let v = r && r.return;
      if (v && v.item !== undefined) v = v.item;
      if (!Array.isArray(v)) v = v === undefined || v === null ? [] : [v];
      if (v.length !== n) return 'wrong number of integers';
      for (let i = 0; i < n; i++) if (Number(text(v[i])) !== i) return 'wrong integer';
      return null;
    }
    return `unknown operation \`${op}\``;
  }

  const warmEnd = process.hrtime.bigint() + BigInt(Math.round(Number(warmup) * 1e9));
  const end = warmEnd + BigInt(Math.round(Number(window) * 1e9));
  const samples = [];
  let ok = 0;
  let errors = 0;
  let firstError = null;
  for (;;) {
    const t0 = process.hrtime.bigint();
    if (t0 >= end && ok + errors > 0) break;
    let err;
    try {
      err = await once();
    } catch (e) {
      err = `error: ${e && e.message ? e.message : e}`;
    }
    const t1 = process.hrtime.bigint();
    if (t0 < warmEnd) continue;
    if (err !== null) {
      errors++;
      if (firstError === null) firstError = err;
      continue;
    }
    ok++;
    if (samples.length < MAX_SAMPLES) samples.push(Math.round(Number(t1 - t0) / 10) / 100);
  }
  agent.destroy();
  console.log(JSON.stringify({ ok, errors, first_error: firstError, samples_us: samples }));
}

main().catch((e) => {
  console.error(`node client: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
