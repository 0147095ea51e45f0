// The few parts of panva's oidc-provider (v9, shipped without type declarations) that the development provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload {
    [key: string]: unknown;
    uid?: string;
    grantId?: string;
    userCode?: string;
    consumed?: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_name?: string;
    redirect_uris: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: string;
    application_type?: 'web' | 'native';
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantConstructor {
    new (properties: { clientId: string; accountId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface OidcContext {
    client?: { clientId: string; redirectUris: string[]; clientAuthMethod: string };
    session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
    result?: { consent?: { grantId?: string } };
    provider: Provider;
    route?: string;
  }

  export interface KoaContextWithOIDC {
    oidc: OidcContext;
    type: string;
    body: unknown;
  }

  export type ClaimsRecord = Record<string, unknown> & { sub: string };

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<ClaimsRecord> | ClaimsRecord;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[] };
    params: Record<string, unknown>;
    returnTo: string;
  }

  export interface InteractionResults {
    login?: { accountId: string };
    error?: string;
    error_description?: string;
  }

  export type Configuration = Record<string, unknown> & {
    adapter?: new (name: string) => Adapter;
    clients?: ClientMetadata[];
    findAccount?: (ctx: KoaContextWithOIDC, sub: string) => Promise<Account | undefined>;
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
    renderError?: (ctx: KoaContextWithOIDC, out: Record<string, string>, error: Error) => Promise<void>;
    clientBasedCORS?: (ctx: KoaContextWithOIDC, origin: string, client: OidcContext['client']) => boolean;
    interactions?: {
      url: (ctx: KoaContextWithOIDC, interaction: { uid: string }) => Promise<string> | string;
    };
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    readonly Grant: GrantConstructor;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
