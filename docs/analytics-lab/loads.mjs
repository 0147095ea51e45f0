// node loads.mjs: load time, RSS and bytes per post from results/load-*.json
import { readdirSync, readFileSync } from 'node:fs';
console.log('| store | posts | load s | peak RSS MiB (load) | RSS after MiB | on disk (active parts / file) | bytes/post | tok rows | load avg at end |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const f of readdirSync('results').filter((f) => f.startsWith('load-') && f.endsWith('.json')).sort()) {
  const x = JSON.parse(readFileSync(`results/${f}`, 'utf8'));
  const bytes = x.parts ? x.parts.reduce((s, p) => s + Number(p.bytes), 0) : x.du;
  const tok = x.parts ? x.parts.find((p) => p.table === 'tok')?.rows : x.sizes?.find((s) => s.table_name === 'tok')?.estimated_size;
  const detail = x.parts ? x.parts.map((p) => `${p.table} ${(Number(p.bytes) / 2 ** 20).toFixed(0)}`).join(', ') + ` MiB (du ${(x.du / 2 ** 20).toFixed(0)} MiB)` : `file ${(x.du / 2 ** 20).toFixed(0)} MiB`;
  console.log(`| ${x.engine} | ${x.N.toLocaleString('en-US')} | ${x.loadS?.toFixed(0)} | ${x.peakRssMiB} | ${x.rssAfterLoadMiB} | ${(bytes / 2 ** 20).toFixed(0)} MiB: ${detail} | ${(bytes / x.N).toFixed(0)} | ${tok ?? ''} | ${x.load} |`);
}
