// node evloop.mjs <ch|duck> <srcN> <K>: event-loop delay while the heaviest statement runs, one query at a time (4×)
import { openCh } from './ch-engine.mjs';
import { openDuck } from './duck-engine.mjs';
import { loopDelay, load } from './mix.mjs';
const [engine, srcN, K] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const e = engine === 'duck' ? await openDuck({ srcN, K, KEEP: true, MEM: '3GB' }) : await openCh({ srcN, K, KEEP: true });
const heavy = e.statements(null, 90).authors;
await e.rows(heavy);
console.log('idle', JSON.stringify(await loopDelay(() => new Promise((r) => setTimeout(r, 1500)))), load());
for (let i = 0; i < 4; i++) console.log(e.name, JSON.stringify(await loopDelay(() => e.rows(heavy))), load());
e.close();
process.exit(0);
