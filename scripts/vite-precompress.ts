// A Vite plugin that writes a brotli (.br) and a gzip (.gz) copy of each text asset the build emits, at the highest
// levels (the build pays once; every visitor saves), so the server sends them as they are (@fastify/static's
// preCompressed) instead of compressing on every request or not at all. A dozen lines over node:zlib do the job: the
// published plugins wrap the same calls with options this build does not need.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
const TEXT = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/;
/** Below this, the headers of a compressed answer cost about what it saves. */
const MIN_BYTES = 1024;

export function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'murmur-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async writeBundle(_options, bundle) {
      const files = [...Object.keys(bundle), 'index.html'].filter(
        (name, i, all) => TEXT.test(name) && all.indexOf(name) === i,
      );
      await Promise.all(
        files.map(async (name) => {
          const path = join(outDir, name);
          const content = await readFile(path).catch(() => null);
          if (!content || content.length < MIN_BYTES) return;
          const [br, gzipped] = await Promise.all([
            brotli(content, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
              },
            }),
            gz(content, { level: 9 }),
          ]);
          await Promise.all([writeFile(`${path}.br`, br), writeFile(`${path}.gz`, gzipped)]);
        }),
      );
    },
  };
}
