import { requester, type Stack } from "./measure";
import type { Target } from "./targets";

/** The benchmark's phases, in order; each figure is filed under the phase it was taken in. */
export type Phase = "idle" | "setup" | "trades" | "quotes" | "drain";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Requests to the warm endpoints, one at a time and one every `everyMs`, round after round, each
 * timing filed under the phase it started in, until `phase()` returns null. Answers other than
 * the expected status are counted. A steady client, not a load of its own: at one every 10 ms it
 * was back to back (an idle answer takes 7–17 ms) and with workerd took ~80 % of a core of the
 * machine's two, CPU the figures it measures then competed for.
 */
export async function sampleLatency(
  stack: Stack,
  targets: Target[],
  keys: string[],
  phase: () => Phase | null,
  into: Map<Phase, Map<string, number[]>>,
  errors: Map<string, number>,
  everyMs = 50,
): Promise<void> {
  const requesters = targets.map((t) => ({ t, r: requester(stack.url, t, keys) }));
  for (let i = 0; ; i++) {
    for (const { t, r } of requesters) {
      const now = phase();
      if (now === null) return;
      const started = performance.now();
      const { ms, status } = await r.timed(i);
      await sleep(Math.max(0, everyMs - (performance.now() - started)));
      if (status !== r.expected) errors.set(`${t.name} ${status}`, (errors.get(`${t.name} ${status}`) ?? 0) + 1);
      const byTarget = into.get(now) ?? new Map<string, number[]>();
      into.set(now, byTarget);
      const timings = byTarget.get(t.name) ?? [];
      byTarget.set(t.name, timings);
      timings.push(ms);
    }
  }
}

/** A figure (ms) filed under the phase it was taken in. */
interface Timing {
  phase: Phase;
  ms: number;
}

interface SeenPrint {
  /** When the gateway was to send it (wall ms): its receive time on the feed's clock. */
  scheduled: number;
  size: number;
  netSeen: boolean;
}

/**
 * How soon a trade shows through the API: polls `/v1/flow` (newest first) and `/v1/flow/net` of
 * one underlying for the feed's day, each every `everyMs`. A print's latency is the wall
 * time of the first answer holding it minus the time the gateway was to send it (`scheduled`,
 * from its receive time — execution + 1 ms in the generated feed): an upper bound of
 * received-to-visible, the poll interval included. In net flow a print counts once the summary's
 * volume covers it (prints commit in receive-time order).
 */
export class VisibilityProbe {
  readonly flow: Timing[] = [];
  readonly net: Timing[] = [];
  /** Each poll's response time, per endpoint. */
  readonly answered = { flow: [] as Timing[], net: [] as Timing[] };
  readonly errors = new Map<string, number>();
  private readonly seen = new Map<string, SeenPrint>();
  private ordered: SeenPrint[] = [];
  private netCovered = 0;

  constructor(
    private readonly url: string,
    private readonly keys: string[],
    private readonly symbol: string,
    private readonly day: string,
    /** Wall ms at which the gateway sends a record received at `executedAt + 1 ms`; null before the run begins. */
    private readonly scheduledAt: (receivedMs: number) => number | null,
  ) {}

  /** Two clients, one per endpoint, each polling every `everyMs` (a client of one does not wait for the other). */
  async run(phase: () => Phase | null, everyMs = 200): Promise<void> {
    const poll = async (once: (i: number, phase: Phase) => Promise<void>, offset: number) => {
      for (let i = offset; phase() !== null; i += 2) {
        const started = Date.now();
        await once(i, phase()!);
        await sleep(Math.max(0, everyMs - (Date.now() - started)));
      }
    };
    await Promise.all([poll((i, ph) => this.pollFlow(i, ph), 0), poll((i, ph) => this.pollNet(i, ph), 1)]);
  }

  private async get(path: string, i: number, phase: Phase, into: Timing[]): Promise<{ status: number; body: unknown }> {
    const started = performance.now();
    const res = await fetch(this.url + path, { headers: { Authorization: `Bearer ${this.keys[i % this.keys.length]}` } });
    const body: unknown = await res.json().catch(() => null);
    into.push({ phase, ms: performance.now() - started });
    return { status: res.status, body };
  }

  private async pollFlow(i: number, phase: Phase): Promise<void> {
    const window = `from=${this.day}&to=${this.day}`;
    const { status, body } = await this.get(
      `/v1/flow?symbol=${this.symbol}&sort=time&minPremium=0&limit=250&${window}`,
      i,
      phase,
      this.answered.flow,
    );
    const at = Date.now();
    if (status === 400 && this.seen.size === 0) return;
    if (status !== 200) return this.count(`flow ${status}`);
    const prints = (body as { prints: { optionSymbol: string; executedAt: string; size: number; price: number }[] }).prints;
    const fresh: SeenPrint[] = [];
    for (const p of prints.reverse()) {
      const key = `${p.optionSymbol} ${p.executedAt} ${p.size} ${p.price}`;
      const scheduled = this.scheduledAt(Date.parse(p.executedAt) + 1);
      if (this.seen.has(key) || scheduled === null) continue;
      const print = { scheduled, size: p.size, netSeen: false };
      this.seen.set(key, print);
      fresh.push(print);
      this.flow.push({ phase, ms: at - scheduled });
    }
    // Only prints net flow has not covered yet: a day's thousands are not sorted again on every poll.
    this.ordered = [...this.ordered.filter((p) => !p.netSeen), ...fresh].sort((a, b) => a.scheduled - b.scheduled);
  }

  private async pollNet(i: number, phase: Phase): Promise<void> {
    const { status, body } = await this.get(
      `/v1/flow/net?symbol=${this.symbol}&minPremium=0&from=${this.day}&to=${this.day}`,
      i,
      phase,
      this.answered.net,
    );
    const at = Date.now();
    // Before the day's first print the day is after the newest session: 400 out_of_range, as documented.
    if (status === 400 && this.seen.size === 0) return;
    if (status !== 200) return this.count(`flow/net ${status}`);
    const volume = (body as { summary: { volume: number } }).summary.volume;
    for (const p of this.ordered) {
      if (p.netSeen) continue;
      if (this.netCovered + p.size > volume) break;
      this.netCovered += p.size;
      p.netSeen = true;
      this.net.push({ phase, ms: at - p.scheduled });
    }
  }

  private count(outcome: string): void {
    this.errors.set(outcome, (this.errors.get(outcome) ?? 0) + 1);
  }
}

/**
 * When each minute's quotes show through the API: polls one contract's quote (through the edge
 * cache, as a client sees it) and notes when its `asOf` first reaches each sampled minute.
 */
export async function watchQuoteMinutes(
  url: string,
  key: string,
  optionSymbol: string,
  phase: () => Phase | null,
  seen: Map<number, number>,
  everyMs = 250,
): Promise<void> {
  while (phase() !== null) {
    const res = await fetch(`${url}/v1/options/quotes/${optionSymbol}`, { headers: { Authorization: `Bearer ${key}` } });
    const body = (await res.json().catch(() => null)) as { asOf?: string } | null;
    const asOf = body?.asOf ? Date.parse(body.asOf) : NaN;
    if (Number.isFinite(asOf) && !seen.has(asOf)) seen.set(asOf, Date.now());
    await sleep(everyMs);
  }
}

/**
 * When each minute's quotes show in the screener: polls a screen of one underlying for its newest
 * row's `lastUpdatedDate` (its quote's time), one request every `everyMs` to each of `symbols` in
 * turn (underlyings in different partitions), and notes when each first reaches each sampled minute.
 */
export async function watchScreenerMinutes(
  url: string,
  key: string,
  symbols: string[],
  phase: () => Phase | null,
  seen: Map<string, Map<number, number>>,
  everyMs = 250,
): Promise<void> {
  for (let i = 0; phase() !== null; i++) {
    const symbol = symbols[i % symbols.length]!;
    const res = await fetch(`${url}/v1/contracts/screen`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ symbols: [symbol], pageSize: 1, filters: [{ field: "lastUpdatedDate", operation: "sort", value: "desc" }] }),
    });
    const body = (await res.json().catch(() => null)) as { results?: { lastUpdatedDate?: string }[] } | null;
    const asOf = Date.parse(body?.results?.[0]?.lastUpdatedDate ?? "");
    const bySymbol = seen.get(symbol) ?? new Map<number, number>();
    seen.set(symbol, bySymbol);
    if (Number.isFinite(asOf) && !bySymbol.has(asOf)) bySymbol.set(asOf, Date.now());
    await sleep(everyMs);
  }
}

/**
 * When an answer changes: polls `path` every `everyMs` and notes the wall time of each change of
 * `pick(body)` (the IV context's figures, a ranking's order and IVs). Neither answer carries its
 * minute, but each minute's quotes change them, so the first change after a minute's end is that
 * minute showing.
 */
export async function watchChanges(
  url: string,
  key: string,
  path: string,
  pick: (body: unknown) => unknown,
  phase: () => Phase | null,
  changes: number[],
  everyMs = 250,
): Promise<void> {
  let last: string | undefined;
  while (phase() !== null) {
    const res = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    const body: unknown = res.ok ? await res.json().catch(() => null) : null;
    if (body !== null) {
      const now = JSON.stringify(pick(body));
      if (last !== undefined && now !== last) changes.push(Date.now());
      last = now;
    }
    await sleep(everyMs);
  }
}
