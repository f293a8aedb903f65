import { Hono } from "hono";
import type { DashboardEnv } from "../env";
import { loadEntitlementSnapshot } from "../../control/snapshot";
import { usageSince } from "../../control/usage";
import { addDays } from "../../domain/calendar";
import { evaluateEntitlement } from "../../domain/entitlement";
import { TRIAL_PLAN } from "../../domain/plans";
import { DAY_MS } from "../../domain/time";
import { usageDay } from "../../limits/usage-day";
import { currentSession, page, requireSession, type DashboardContext } from "../middleware";
import { oidcSettings } from "../oidc";
import { messagePage, overviewPage, signInPage } from "../pages";
import { accountActionLimit } from "../throttle";
import { services } from "../../services";

const USAGE_CHART_DAYS = 30;

/** Every day of the chart, zero where nothing was recorded; today is the live count when it is ahead of the last write. */
function chartDays(since: string, recorded: { date: string; requests: number }[], today: { date: string; requests: number }) {
  const byDate = new Map(recorded.map((d) => [d.date, d.requests]));
  byDate.set(today.date, Math.max(byDate.get(today.date) ?? 0, today.requests));
  return Array.from({ length: USAGE_CHART_DAYS }, (_, i) => {
    const date = addDays(since, i);
    return { date, requests: byDate.get(date) ?? 0 };
  });
}

async function overview(c: DashboardContext) {
  const session = c.get("session");
  const control = services(c).controlPlane;
  const db = services(c).control;
  const today = usageDay(Date.now()).date;
  const since = addDays(today, 1 - USAGE_CHART_DAYS);
  const [view, account, snapshot, usage, recorded] = await Promise.all([
    control.accounts.view(session.accountName),
    control.accounts.find(session.accountName),
    loadEntitlementSnapshot(db, session.accountId),
    c.env.ACCOUNT_LIMITER.getByName(String(session.accountId)).requestsToday(),
    usageSince(db, session.accountId, since),
  ]);
  if (!view.ok || !account) return c.redirect("/dashboard", 303);
  const now = Date.now();
  const entitlement = evaluateEntitlement(snapshot, now);
  const sub = view.value.subscription;
  const onTrial = sub?.plan === TRIAL_PLAN.id && sub.trialEnd !== null;
  const status = sub?.status;
  return page(
    c,
    overviewPage({
      account: view.value,
      email: session.email,
      entitled: entitlement.entitled,
      reason: entitlement.entitled ? null : entitlement.reason,
      requestsToday: usage.today,
      trialDaysLeft: onTrial ? Math.max(0, Math.ceil((Date.parse(sub.trialEnd as string) - now) / DAY_MS)) : null,
      canStartTrial: account.trialStartedAt === null && status !== "active" && status !== "past_due",
      usage: chartDays(since, recorded, { date: usage.date, requests: usage.today }),
    }),
  );
}

/** `/dashboard`: the signed-in account's overview (else the sign-in page), and the trial it can start. */
export const overviewPages = new Hono<DashboardEnv>({ strict: false });

overviewPages.get("/", async (c) => {
  const session = await currentSession(c);
  if (!session) return page(c, signInPage({ configured: oidcSettings(c.get("config")) !== undefined }));
  c.set("session", session);
  return overview(c);
});

// Every method: a signed-out request for this path goes to the sign-in page, whatever it is.
overviewPages.use("/trial", requireSession);

// An action that writes: a per-account budget besides the per-client one.
overviewPages.post("/trial", accountActionLimit, async (c) => {
  const started = await services(c).controlPlane.subscriptions.startTrial(c.get("session").accountName);
  if (!started.ok) {
    return page(c, messagePage("Trial not started", started.message, { href: "/dashboard", label: "Back to the overview" }, true), 409);
  }
  return c.redirect("/dashboard", 303);
});
