// Writes one JSON document of a given shape and approximate size, deterministically (fixed LCG
// seed), for bench/json/jcs_vs_canonicalize.sh.
//
// Usage: node bench/json/gen.mjs SHAPE BYTES > FILE
// Shapes: small (many small objects), numbers (arrays of numbers), strings (long strings with
// non-ASCII and escapes), wide (objects with thousands of members), manifest (the ERC-8257 tool
// manifest of bench/jcs_bench.cpp: nested JSON Schema, pretty-printed, keys out of order).
const [shape, bytesArg] = process.argv.slice(2);
const target = Number(bytesArg);

let state = 0x8257n;
function next() {
  state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
  return Number(state >> 33n);
}
const below = (n) => next() % n;

const words = ['price', 'oracle', 'café', 'naïve', 'über', '日本', 'token', 'collection', 'résumé',
  '🚀', 'floor', 'wallet', 'αβγ', 'straße', 'agent', '한', 'Ωmega', 'данные', '数据'];
const sentence = (n) => Array.from({ length: n }, () => words[below(words.length)]).join(' ');

function number() {
  switch (below(6)) {
    case 0: return String(below(1000000));
    case 1: return (below(10000000) / 100).toFixed(2);
    case 2: return String(next() / 0x80000000 + next() / 2 ** 62);  // 16-17 digit doubles
    case 3: return `${below(1000)}.${below(1000)}e${below(40) - 20}`;
    case 4: return String(-below(2 ** 31) * 1000);
    default: return `0.${String(below(100000)).padStart(5, '0')}1`;
  }
}

const parts = [];
let size = 0;
const push = (s) => { parts.push(s); size += s.length; };

if (shape === 'small') {
  push('[');
  for (let i = 0; size < target; ++i) {
    push(`${i ? ',' : ''}\n  {"name": "agent-${i}", "id": ${i}, "active": ${i % 3 === 0}, ` +
      `"score": ${(below(10000) / 100).toFixed(2)}, "tags": ["a", "b${below(9)}"], ` +
      `"owner": {"chain": "eip155:${below(9000)}", "wallet": null}}`);
  }
  push('\n]\n');
} else if (shape === 'numbers') {
  push('[');
  for (let i = 0; size < target; ++i) {
    const row = Array.from({ length: 16 }, number);
    push(`${i ? ',' : ''}\n  [${row.join(', ')}]`);
  }
  push('\n]\n');
} else if (shape === 'strings') {
  push('[');
  for (let i = 0; size < target; ++i) {
    let s = sentence(200 + below(400));
    if (i % 4 === 0) s += ' line\nbreak "quoted" \\ tab\t é \u0001';
    push(`${i ? ',' : ''}\n  ${JSON.stringify(s).replace(/é/g, i % 8 === 0 ? '\\u00e9' : 'é')}`);
  }
  push('\n]\n');
} else if (shape === 'wide') {
  push('[');
  for (let i = 0; size < target; ++i) {
    const keys = new Set();
    while (keys.size < 5000) keys.add(`k${below(1 << 30).toString(36)}${below(3) ? '' : 'é'}`);
    const members = [...keys].map((k, j) => `"${k}": ${j % 2 ? below(100000) : `"v${j}"`}`);
    push(`${i ? ',' : ''}\n  {${members.join(', ')}}`);
  }
  push('\n]\n');
} else if (shape === 'manifest') {
  const schema = (depth, indent) => {
    let out = `{\n${indent}  "type": "object",\n${indent}  "description": "${sentence(6)}",\n` +
      `${indent}  "properties": {\n`;
    const n = depth > 0 ? 4 : 6;
    for (let i = 0; i < n; ++i) {
      out += `${indent}    "field_${below(100000)}": `;
      if (depth > 0 && i === 0) {
        out += schema(depth - 1, `${indent}    `);
      } else {
        out += `{"type": "number", "minimum": ${below(1000)}, "maximum": ${below(1000000)}.25, ` +
          `"multipleOf": 1E-${1 + below(8)}, "description": "${sentence(8)}"}`;
      }
      out += i + 1 < n ? ',\n' : '\n';
    }
    return `${out}${indent}  },\n${indent}  "required": ["a", "b"]\n${indent}}`;
  };
  push('{\n  "type": "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1",\n' +
    '  "name": "bench-tool",\n  "version": "1.0.0",\n' +
    '  "creatorAddress": "0xabcdef0123456789abcdef0123456789abcdef01",\n' +
    '  "endpoint": "https://tools.example.com/bench",\n  "pricing": [\n');
  for (let i = 0; i < 8; ++i) {
    push(`    {"protocol": "x402", "amount": "${next()}", ` +
      '"asset": "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", ' +
      `"recipient": "eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01"}${i < 7 ? ',\n' : '\n'}`);
  }
  push('  ],\n  "tags": ["nft", "pricing", "日本"],\n  "inputs": {"type": "object", "properties": {\n');
  for (let k = 0; size < target - 2000; ++k) push(`${k ? ',\n' : ''}  "group_${k}": ${schema(3, '  ')}`);
  push(`\n}},\n  "outputs": {"type": "object"},\n  "description": "${sentence(40)}"\n}\n`);
} else {
  console.error(`unknown shape ${shape}`);
  process.exit(2);
}
process.stdout.write(parts.join(''));
