import type { Bindings, Config } from "./env";

/** Hono's type parameters for our app: bindings and per-request variables. */
export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: Config;
  };
}
