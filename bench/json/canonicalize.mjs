// npm canonicalize as a command: JSON.parse + canonicalize of FILE, canonical bytes to stdout.
import { readFileSync, writeSync } from 'node:fs';
import canonicalize from 'canonicalize';

const out = Buffer.from(canonicalize(JSON.parse(readFileSync(process.argv[2], 'utf8'))), 'utf8');
for (let off = 0; off < out.length;) off += writeSync(1, out, off);
