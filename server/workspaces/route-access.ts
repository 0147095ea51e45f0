// Workspace access declared on the route and enforced by one hook. A route says where its workspace id is and the
// least privilege it needs (`config: { workspace: { from, minimum } }`); a preHandler resolves the caller's access
// (404 for non-members, the route's refusal below the minimum) and handlers read it with workspaceAccessOf(request).
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Privilege } from '@contract/workspaces';
import type { ServerConfig } from '@server/config';
import { forbidden, unauthorized, type ApiError } from '@server/errors';
import {
  prepareWorkspaceAccess,
  resolveWorkspaceAccess,
  type Executor,
  type WorkspaceAccess,
} from './access';
import { atLeast } from './permissions';

export interface WorkspaceRequirement {
  /** Where the workspace id is: `params` reads the path's `:id`, `body` reads `workspace_id`. */
  from: 'params' | 'body';
  /** The least privilege the route needs. */
  minimum: Privilege;
  /** The refusal for a member below the minimum; 403 forbidden when absent. */
  denied?: () => ApiError;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Declares that the route acts on a workspace; enforced by server/workspaces/route-access.ts. */
    workspace?: WorkspaceRequirement;
  }
  interface FastifyRequest {
    /** Set by the route-access hook on routes that declare `config.workspace`; read it with workspaceAccessOf. */
    workspaceAccess: WorkspaceAccess | null;
  }
}

export interface RouteAccessOptions {
  db: Executor;
  config: ServerConfig;
}

function workspaceIdOf(request: FastifyRequest, from: WorkspaceRequirement['from']): string {
  const source = from === 'params' ? request.params : request.body;
  const key = from === 'params' ? 'id' : 'workspace_id';
  const id = (source as Record<string, unknown> | undefined)?.[key];
  // The route's schema requires it (checked when the route is declared), so this is a programming error.
  if (typeof id !== 'string') {
    throw new Error(
      `${request.routeOptions.url} declares its workspace in ${from}.${key}, which is missing.`,
    );
  }
  return id;
}

function assertMinimum(access: WorkspaceAccess, requirement: WorkspaceRequirement) {
  if (!atLeast(access.privilege, requirement.minimum)) throw (requirement.denied ?? forbidden)();
}

/** A route that reads its workspace from a place it does not have fails at start-up, not on a request. */
function checkDeclaration(route: RouteOptions, requirement: WorkspaceRequirement) {
  const where = `${String(route.method)} ${route.url}`;
  if (requirement.from === 'params' && !/\/:id(\/|$)/.test(route.url)) {
    throw new Error(`${where} declares config.workspace from params but has no :id in its path.`);
  }
  if (requirement.from === 'body' && !route.schema?.body) {
    throw new Error(`${where} declares config.workspace from body but has no body schema.`);
  }
}

export const routeAccess = fp(
  async (app: FastifyInstance, { db, config }: RouteAccessOptions) => {
    const workspaceAccess = prepareWorkspaceAccess(db, config);
    app.decorateRequest('workspaceAccess', null);

    // A preHandler: it runs after the params and body are validated and after the plugin's requireUser (onRequest).
    const enforce = (requirement: WorkspaceRequirement) =>
      async function enforceWorkspaceAccess(request: FastifyRequest) {
        // A route that declares a workspace but no authentication answers as if signed out, never with data.
        if (!request.userId) throw unauthorized('A valid access token is required.');
        const access = await workspaceAccess(workspaceIdOf(request, requirement.from), request.userId);
        assertMinimum(access, requirement);
        request.workspaceAccess = access;
      };

    // Only routes that declare a workspace get the hook (first among their own preHandlers); others are untouched.
    app.addHook('onRoute', (route) => {
      const requirement = route.config?.workspace;
      if (!requirement) return;
      checkDeclaration(route, requirement);
      const own = route.preHandler ? [route.preHandler].flat() : [];
      route.preHandler = [enforce(requirement), ...own];
    });
  },
  { name: 'route-access', dependencies: ['authenticate'] },
);

/** The access the route-access hook resolved; throws on a route that declares no `config.workspace`. */
export function workspaceAccessOf(request: FastifyRequest): WorkspaceAccess {
  if (!request.workspaceAccess) {
    throw new Error(`The route ${request.routeOptions.url} declares no config.workspace.`);
  }
  return request.workspaceAccess;
}

/**
 * Inside a transaction: the caller's access read again with the workspace row locked until the transaction ends, and
 * the route's minimum checked on what the lock sees. For writes whose rules span rows (the last owner, the saved-query
 * limit): concurrent membership changes and creates take turns, and a demotion committed meanwhile counts.
 */
export async function lockWorkspaceAccess(
  tx: Executor,
  config: ServerConfig,
  request: FastifyRequest,
): Promise<WorkspaceAccess> {
  const requirement = request.routeOptions.config.workspace;
  const { workspace } = workspaceAccessOf(request);
  const access = await resolveWorkspaceAccess(tx, config, workspace.id, request.userId, { lock: true });
  if (requirement) assertMinimum(access, requirement);
  return access;
}
