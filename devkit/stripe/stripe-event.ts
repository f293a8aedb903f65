/** A webhook event as Stripe sends it (API version 2025-10-29.clover), JSON text. */
export function stripeEvent(type: string, created: number, object: unknown, id: string): string {
  return JSON.stringify({
    id,
    object: "event",
    api_version: "2025-10-29.clover",
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });
}
