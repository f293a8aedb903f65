import type { RouteSpec } from "../http/route";
import { usageRoute } from "./account/usage";
import { verifyRoute } from "./account/verify";
import { createAccountRoute, getAccountRoute, setSubscriptionRoute } from "./admin/accounts";
import { createKeyRoute, listKeysRoute, revokeKeyRoute } from "./admin/keys";
import { refreshSnapshotRoute, wakeStreamsRoute } from "./admin/market";
import { healthRoute } from "./meta/health";
import { openApiRoute } from "./meta/openapi";
import { plansRoute } from "./meta/plans";
import { readyRoute } from "./meta/ready";
import { batchQuotesRoute } from "./quotes-and-options/batch-quotes";
import { chainRoute } from "./quotes-and-options/chain";
import { expirationsRoute } from "./quotes-and-options/expirations";
import { optionQuoteRoute } from "./quotes-and-options/option-quote";
import { equityQuoteRoute } from "./quotes-and-options/equity-quote";
import { dividendsRoute } from "./calendars/dividends";
import { earningsRoute } from "./calendars/earnings";
import { flowRoute } from "./flow/flow";
import { netFlowRoute } from "./flow/net-flow";
import { gexRoute } from "./gamma-exposure/gex";
import { ivContextRoute } from "./volatility/iv-context";
import { topIvRoute, topIvrRoute } from "./volatility/top-iv";
import { gexHeatmapRoute } from "./gamma-exposure/heatmap";
import { screenRoute } from "./screener/screen";

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
  screenRoute,
  earningsRoute,
  dividendsRoute,
  ivContextRoute,
  topIvRoute,
  topIvrRoute,
  gexRoute,
  gexHeatmapRoute,
  flowRoute,
  netFlowRoute,
  createAccountRoute,
  getAccountRoute,
  setSubscriptionRoute,
  createKeyRoute,
  listKeysRoute,
  revokeKeyRoute,
  refreshSnapshotRoute,
  wakeStreamsRoute,
];
