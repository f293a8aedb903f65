import type { RouteSpec } from "../http/route";
import { healthRoute } from "./meta/health";
import { describeRoutes, openApiRoute } from "./meta/openapi";
import { plansRoute } from "./meta/plans";
import { readyRoute } from "./meta/ready";

/** Every route of the public API, in the order the description lists them. */
export const routes: readonly RouteSpec[] = [healthRoute, readyRoute, openApiRoute, plansRoute];

describeRoutes(routes);
