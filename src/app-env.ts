import type { PlanLimits } from "./domain/plans";
import type { Bindings, Config } from "./env";
import type { EntitlementView, UsageView } from "./limits/admission";

/** Where validated input comes from: path parameters, query string, JSON body. */
export type InputTarget = "param" | "query" | "json";

/** The API description as the `/openapi.json` route serves it. */
export interface DescriptionSource {
  published(): Promise<{ body: string; etag: string }>;
}

/** The authenticated caller, set by the access gate on key and entitled routes. */
export interface AccountContext {
  accountId: number;
  keyId: number;
  keyPrefix: string;
  entitlement: EntitlementView;
  /** The limits of the account's plan: every clamp and cap reads them here. */
  limits: PlanLimits;
  usage: UsageView;
}

/** Hono's type parameters for our app: bindings and per-request variables. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: Config;
    account: AccountContext;
    /** On `/mcp`: counts `cost` more requests of this one's account (a batch's further messages), refused as admission refuses. */
    meter: (cost: number) => Promise<void>;
    /** The description of this app's routes (`/openapi.json`). */
    apiDescription: DescriptionSource;
  };
}
