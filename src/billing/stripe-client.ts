import type Stripe from "stripe";
import type { Config } from "../env";

export interface BillingSettings {
  secretKey: string;
  webhookSecret: string;
  priceBasic: string;
  /** A local server replaying recorded Stripe responses (tests, development); unset → Stripe's API. */
  apiUrl?: string;
}

/** Billing is configured when the three Stripe settings are (the configuration sets them together). */
export function billingSettings(config: Config): BillingSettings | undefined {
  const { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_BASIC, STRIPE_API_URL } = config;
  return STRIPE_SECRET_KEY && STRIPE_WEBHOOK_SECRET && STRIPE_PRICE_BASIC
    ? { secretKey: STRIPE_SECRET_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET, priceBasic: STRIPE_PRICE_BASIC, apiUrl: STRIPE_API_URL }
    : undefined;
}

/** The SDK, loaded on first use: it is the Worker's largest module and almost no request bills. */
export const stripeSdk = () => import("stripe").then((module) => module.default);

/** The official SDK on workerd: fetch for HTTP; host, port and protocol point it at a replay server in tests. */
export async function stripeClient(settings: BillingSettings): Promise<Stripe> {
  const Stripe = await stripeSdk();
  const api = settings.apiUrl ? new URL(settings.apiUrl) : undefined;
  return new Stripe(settings.secretKey, {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 1,
    telemetry: false,
    ...(api && {
      host: api.hostname,
      port: api.port || (api.protocol === "https:" ? 443 : 80),
      protocol: api.protocol === "https:" ? "https" : "http",
    }),
  });
}

/** Verifies the `Stripe-Signature` header with WebCrypto, at the SDK's default tolerance (300 s). */
export async function verifiedEvent(settings: BillingSettings, payload: string, signature: string): Promise<Stripe.Event> {
  const Stripe = await stripeSdk();
  return (await stripeClient(settings)).webhooks.constructEventAsync(
    payload,
    signature,
    settings.webhookSecret,
    undefined,
    Stripe.createSubtleCryptoProvider(),
  );
}

export type { Stripe };
