import type { RouteSpec } from "../http/route";
import { usageRoute } from "./account/usage";
import { verifyRoute } from "./account/verify";
import { createAccountRoute, getAccountRoute, setSubscriptionRoute } from "./admin/accounts";
import { createKeyRoute, listKeysRoute, revokeKeyRoute } from "./admin/keys";
import { healthRoute } from "./meta/health";
import { describeRoutes, openApiRoute } from "./meta/openapi";
import { plansRoute } from "./meta/plans";
import { readyRoute } from "./meta/ready";
import { batchQuotesRoute } from "./options/batch-quotes";
import { chainRoute } from "./options/chain";
import { expirationsRoute } from "./options/expirations";
import { optionQuoteRoute } from "./options/option-quote";
import { equityQuoteRoute } from "./quotes/equity-quote";

/** Every route of the API, in the order the description lists them; admin routes are never described. */
export const routes: readonly RouteSpec[] = [
  healthRoute,
  readyRoute,
  openApiRoute,
  plansRoute,
  verifyRoute,
  usageRoute,
  equityQuoteRoute,
  optionQuoteRoute,
  batchQuotesRoute,
  expirationsRoute,
  chainRoute,
  createAccountRoute,
  getAccountRoute,
  setSubscriptionRoute,
  createKeyRoute,
  listKeysRoute,
  revokeKeyRoute,
];

describeRoutes(routes);
