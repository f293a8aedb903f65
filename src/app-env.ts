import type { Bindings, Config } from "./env";
import type { EntitlementView, UsageView } from "./limits/admission";

/** The authenticated caller, set by the access gate on key and entitled routes. */
export interface AccountContext {
  accountId: number;
  keyId: number;
  keyPrefix: string;
  entitlement: EntitlementView;
  usage: UsageView;
}

/** Hono's type parameters for our app: bindings and per-request variables. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: Config;
    account: AccountContext;
  };
}
