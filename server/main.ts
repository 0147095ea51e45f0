// `npm start`: the whole product on one port — the SPA, the internal API and PostgreSQL (embedded by default).
import { resolve } from 'node:path';
import { loadServerConfig } from './config';
import { openDatabase } from './db/database';
import { buildApp } from './app';
import { ensureSpaBuild } from './spa-build';
import { createAccessTokens } from './auth/access-token';
import { loadSigningKey } from './auth/signing-key';
import { seedDevData } from './seed';

const root = resolve(import.meta.dirname, '..');

async function main() {
  const config = loadServerConfig();
  const spaDir = resolve(root, 'dist');
  const connectOrigins = await ensureSpaBuild(root, spaDir);
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: resolve(root, config.DATA_DIR),
    embeddedPort: config.EMBEDDED_PG_PORT,
  });
  console.log(`Database: ${database.describe}${config.DATABASE_URL ? '' : ' (embedded)'}`);
  const dataDir = resolve(root, config.DATA_DIR);
  const signingKey = loadSigningKey(config.JWT_SIGNING_KEY, dataDir);
  const accessTokens = createAccessTokens(signingKey, config.ACCESS_TOKEN_TTL_SECONDS);
  const app = await buildApp({
    db: database.db,
    accessTokens,
    config,
    spaDir,
    connectOrigins,
    logger: config.APP_ENV !== 'local',
    dataDir,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: shutting down…`);
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    if ((await seedDevData(database.db, config)).createdWorkspace) {
      console.log('Development data: demo accounts and the "Murmur Demo" workspace were created.');
    }
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (error) {
    await app.close();
    await database.close();
    throw error;
  }
  const host = config.HOST === '0.0.0.0' || config.HOST === '127.0.0.1' ? 'localhost' : config.HOST;
  console.log(`Murmur is running at http://${host}:${config.PORT}/  (API docs: /api/docs)`);
  if (config.DEV_OIDC) console.log(`Development sign-in (OpenID provider): ${config.DEV_OIDC_ISSUER}`);
}

main().catch((error: unknown) => {
  console.error(`Murmur could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
