import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import Provider from "oidc-provider";
import { listenOn, reservePort } from "../listen";

/** The local provider's one client: the dashboard of `npm run dev` and of the tests. */
export const DEV_OIDC_CLIENT_ID = "ods-dashboard-dev";

/** Shown by `npm run dev`: the local provider's development login page accepts any password. */
export const DEV_DEMO_LOGIN = "demo@example.com";

export interface DevOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (`oidc-provider`) on 127.0.0.1 for local development and tests: code
 * flow with PKCE, signed ID tokens, discovery. Its development login page accepts any login and
 * password; the login becomes the subject, and an email address (or login@example.test) the
 * `email` claim.
 */
export async function startDevOidcProvider(options: {
  port?: number;
  redirectUris: string[];
  /** The client's secret, when the dashboard was configured before the provider started; else a new one. */
  clientSecret?: string;
}): Promise<DevOidcProvider> {
  // The issuer names the port, so it is bound before the provider exists (0 or none: one the system picks).
  const port = options.port || (await reservePort());
  const issuer = `http://127.0.0.1:${port}`;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("hex");
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: DEV_OIDC_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    cookies: { keys: [randomBytes(32).toString("hex")] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    // The email claim in the ID token itself, so the dashboard needs no userinfo call.
    conformIdTokenClaims: false,
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, email: id.includes("@") ? id : `${id}@example.test`, email_verified: true }),
    }),
  });
  const server = createServer(provider.callback());
  await listenOn(server, port);
  return {
    issuer,
    clientId: DEV_OIDC_CLIENT_ID,
    clientSecret,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
