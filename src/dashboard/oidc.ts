import * as oauth from "oauth4webapi";
import type { Config } from "../env";

/** The OpenID client the dashboard signs in with (`OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The configured client, or undefined when single sign-on is not configured. */
export function oidcSettings(config: Config): OidcSettings | undefined {
  const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = config;
  return OIDC_ISSUER && OIDC_CLIENT_ID && OIDC_CLIENT_SECRET
    ? { issuer: OIDC_ISSUER, clientId: OIDC_CLIENT_ID, clientSecret: OIDC_CLIENT_SECRET }
    : undefined;
}

/** What one authorization request must find again at its callback. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface SignedInIdentity {
  issuer: string;
  subject: string;
  email: string | null;
}

/** A sign-in the provider or the callback's parameters refused: shown to the user, never a 500. */
export class SignInError extends Error {
  override name = "SignInError";
}

/** Discovery documents change rarely: one fetch per issuer and isolate per hour. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const discovered = new Map<string, { server: oauth.AuthorizationServer; at: number }>();

/** Plain http is accepted by the configuration only for a loopback issuer (the local provider). */
function requestOptions(issuer: URL) {
  return { [oauth.allowInsecureRequests]: issuer.protocol === "http:" };
}

async function authorizationServer(settings: OidcSettings): Promise<oauth.AuthorizationServer> {
  const hit = discovered.get(settings.issuer);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.server;
  const issuer = new URL(settings.issuer);
  const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...requestOptions(issuer) });
  const server = await oauth.processDiscoveryResponse(issuer, response);
  discovered.set(settings.issuer, { server, at: Date.now() });
  return server;
}

/** The provider's authorization URL for a new sign-in (code flow, PKCE S256, `state`, `nonce`). */
export async function beginSignIn(settings: OidcSettings, redirectUri: string): Promise<{ url: URL; pending: PendingSignIn }> {
  const server = await authorizationServer(settings);
  if (!server.authorization_endpoint) throw new SignInError("The identity provider has no authorization endpoint.");
  const pending = {
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    codeVerifier: oauth.generateRandomCodeVerifier(),
  };
  const url = new URL(server.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid email",
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
    code_challenge_method: "S256",
  }).toString();
  return { url, pending };
}

/**
 * Validates the callback (issuer, `state`), redeems the code with the PKCE verifier and validates
 * the ID token (issuer, audience, expiry, `nonce`) — all of it by oauth4webapi.
 */
export async function completeSignIn(
  settings: OidcSettings,
  redirectUri: string,
  callbackUrl: URL,
  pending: PendingSignIn,
): Promise<SignedInIdentity> {
  const server = await authorizationServer(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  try {
    const params = oauth.validateAuthResponse(server, client, callbackUrl, pending.state);
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      client,
      oauth.ClientSecretBasic(settings.clientSecret),
      params,
      redirectUri,
      pending.codeVerifier,
      requestOptions(new URL(settings.issuer)),
    );
    const result = await oauth.processAuthorizationCodeResponse(server, client, response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(result);
    if (!claims) throw new SignInError("The identity provider returned no ID token.");
    const email = typeof claims.email === "string" ? claims.email : null;
    return { issuer: claims.iss, subject: claims.sub, email };
  } catch (err) {
    if (
      err instanceof oauth.AuthorizationResponseError ||
      err instanceof oauth.ResponseBodyError ||
      err instanceof oauth.OperationProcessingError ||
      err instanceof oauth.WWWAuthenticateChallengeError
    ) {
      throw new SignInError(err.message);
    }
    throw err;
  }
}
