import { brentRoot } from "./brent";
import { isSummationNoise, type GammaBook } from "./gamma-book";

/**
 * A contract whose standardised distance |d| from its gamma peak exceeds this contributes less
 * than e^{−50} ≈ 2e-22 of its own peak exposure: far below the rounding of any sum it is part of.
 */
const NEGLIGIBLE_D = 10;
const NEGLIGIBLE_E = Math.exp(-0.5 * NEGLIGIBLE_D * NEGLIGIBLE_D);

/** Net dealer GEX (dollars per 1% move) of the whole book re-priced at spot x. */
export function netGexAt(book: GammaBook, x: number): number {
  return netGexOf(book, x, null, book.n);
}

/** Net GEX at x summed over `count` contracts, all of them or those listed in `subset`. */
function netGexOf(book: GammaBook, x: number, subset: Int32Array | null, count: number): number {
  const { a, lnK, c, weight } = book;
  const u = Math.log(x);
  let sum = 0;
  for (let j = 0; j < count; j++) {
    const k = subset === null ? j : subset[j]!;
    const d = a[k]! * (u - lnK[k]!) + c[k]!;
    sum += weight[k]! * Math.exp(-0.5 * d * d);
  }
  return 0.01 * x * sum;
}

/**
 * Net GEX at the m points x_j = exp(u0 + j·du) of a grid uniform in ln x.
 *
 * On such a grid each contract's d is linear in j, so exp(−d²/2) follows a Gaussian recurrence,
 * e_{j+1} = e_j·g_j with g_{j+1} = g_j·e^{−δ²} (δ = a·du): three exponentials per contract
 * instead of one per grid point. Each contract starts at the grid point nearest its peak and
 * walks outwards while its term is not negligible, so short-dated contracts touch only the few
 * points near their strike.
 */
export function netGexOnLogGrid(book: GammaBook, u0: number, du: number, m: number): Float64Array {
  const { a, lnK, c, weight, n } = book;
  const acc = new Float64Array(m);
  for (let k = 0; k < n; k++) {
    const ak = a[k]!;
    const delta = ak * du;
    const dStart = ak * (u0 - lnK[k]!) + c[k]!;
    let j0 = Math.round(-dStart / delta);
    if (j0 < 0) j0 = 0;
    else if (j0 > m - 1) j0 = m - 1;
    const d0 = dStart + j0 * delta;
    // The grid point nearest the peak carries the largest term; if it is negligible, all are.
    if (d0 > NEGLIGIBLE_D || d0 < -NEGLIGIBLE_D) continue;
    const w = weight[k]!;
    const t0 = w * Math.exp(-0.5 * d0 * d0);
    acc[j0]! += t0;
    // First ratios up and down: g± = exp(∓d0·δ − δ²/2), so g₋ = h/g₊ with h = exp(−δ²).
    const h = Math.exp(-delta * delta);
    const gUp = Math.exp(-d0 * delta - 0.5 * delta * delta);
    const limit = Math.abs(w) * NEGLIGIBLE_E;
    if (j0 < m - 1) walk(acc, j0, 1, m - 1, t0, gUp, h, limit);
    // gUp underflows only when δ is so large that both neighbours are negligible.
    if (j0 > 0 && gUp > 0) walk(acc, j0, -1, 0, t0, j0 < m - 1 ? h / gUp : Math.exp(d0 * delta - 0.5 * delta * delta), h, limit);
  }
  for (let j = 0; j < m; j++) acc[j] = 0.01 * Math.exp(u0 + j * du) * acc[j]!;
  return acc;
}

/**
 * Adds one contract's terms from j0 ± 1 towards `last`: t_{i} = t_{i−1}·g_{i−1} with
 * g_i = g·h^i, stopping once they are negligible (they shrink monotonically away from the peak).
 * The odd and even steps run as two independent chains, t_{i+2} = t_i·g_i·g_{i+1} with that
 * ratio multiplied by h⁴ per double step, which halves the multiply latency on the critical path.
 */
function walk(acc: Float64Array, j0: number, dir: 1 | -1, last: number, t0: number, g: number, h: number, limit: number): void {
  const g1 = g * h;
  let tA = t0 * g; // step 1
  let tB = tA * g1; // step 2
  let qA = g1 * g1 * h; // g_1·g_2
  let qB = qA * h * h; // g_2·g_3
  const h4 = h * h * h * h;
  const steps = (last - j0) * dir;
  let j = j0 + dir;
  let i = 1;
  for (; i < steps; i += 2) {
    if (Math.abs(tA) < limit) return;
    acc[j]! += tA;
    acc[j + dir]! += tB;
    tA *= qA;
    tB *= qB;
    qA *= h4;
    qB *= h4;
    j += 2 * dir;
  }
  if (i === steps && Math.abs(tA) >= limit) acc[j]! += tA;
}

export interface GammaFlipOptions {
  /** Half-width of the search range as a fraction of spot (default 0.2: spot ± 20%). */
  range?: number;
  /** Grid step as a fraction of price (default 0.005: 0.5%); the grid is uniform in ln x. */
  step?: number;
  /** Absolute tolerance of the root in dollars (default 1e-7 × spot). */
  tolerance?: number;
}

const DEFAULTS = { range: 0.2, step: 0.005 };

/** A sign change of net GEX between two evaluated points. */
interface Bracket {
  lo: number;
  hi: number;
  fLo: number;
  fHi: number;
  /** Distance from spot to the bracket's nearer end. */
  near: number;
}

/**
 * Gamma flip ("zero gamma"): the hypothetical spot nearest the current one at which the book's
 * net GEX, every contract re-priced sticky-strike, changes sign. Null when it keeps one sign over
 * the whole range.
 *
 * The grid is a lattice fixed in ln x (points k·ln(1 + step), not anchored at spot), plus spot
 * itself, so a small spot move leaves the grid and every bracket unchanged and the flip cannot
 * jump. From spot the nearest sign change is sought on each side; the nearer bracket is refined
 * by Brent's method on the contracts that are not negligible inside it, the other only if it could
 * hold a nearer root; the nearer root wins (the lower one on an exact tie). Net GEX that is zero
 * at spot (to the rounding of its sum) makes spot the flip.
 */
export function gammaFlip(book: GammaBook, spot: number, options: GammaFlipOptions = {}): number | null {
  if (!(spot > 0) || book.n === 0) return null;
  const range = options.range ?? DEFAULTS.range;
  const du = Math.log1p(options.step ?? DEFAULTS.step);
  const tolerance = options.tolerance ?? 1e-7 * spot;
  const jLow = Math.ceil(Math.log(spot * (1 - range)) / du);
  const jHigh = Math.floor(Math.log(spot * (1 + range)) / du);
  const m = Math.max(jHigh - jLow + 1, 0);
  const { net: atSpot, gross } = netAndGrossAt(book, spot);
  if (isSummationNoise(atSpot, gross)) return spot;
  const xAt = (j: number) => Math.exp((jLow + j) * du);
  // The first grid index above spot; grid points equal to spot count as below.
  let above = 0;
  while (above < m && xAt(above) <= spot) above++;

  // The grid is evaluated outwards from spot in widening windows: the nearest sign changes are
  // usually a few steps away, and no point beyond the one that decides the answer is computed.
  const grid = new Float64Array(m);
  let lo = above;
  let hi = above;
  const cover = (from: number, to: number) => {
    if (lo === hi) {
      grid.set(netGexOnLogGrid(book, (jLow + from) * du, du, to - from), from);
      [lo, hi] = [from, to];
      return;
    }
    if (from < lo) {
      grid.set(netGexOnLogGrid(book, (jLow + from) * du, du, lo - from), from);
      lo = from;
    }
    if (to > hi) {
      grid.set(netGexOnLogGrid(book, (jLow + hi) * du, du, to - hi), hi);
      hi = to;
    }
  };
  /** The first sign change from spot towards `dir` among the points computed so far, or how far it has looked. */
  const scan = (dir: 1 | -1): Bracket | null => {
    let x = spot;
    let fx = atSpot;
    for (let j = dir > 0 ? above : above - 1; dir > 0 ? j < hi : j >= lo; j += dir) {
      const xj = xAt(j);
      const fj = grid[j]!;
      // An exact zero at a grid point sits at the end of a bracket, where Brent returns it.
      if (fj > 0 !== fx > 0) {
        return dir > 0 ? { lo: x, hi: xj, fLo: fx, fHi: fj, near: x - spot } : { lo: xj, hi: x, fLo: fj, fHi: fx, near: spot - x };
      }
      x = xj;
      fx = fj;
    }
    return null;
  };
  let down: Bracket | null = null;
  let up: Bracket | null = null;
  for (let radius = 8; ; radius *= 2) {
    cover(Math.max(0, above - radius), Math.min(m, above + radius));
    down = scan(-1);
    up = scan(1);
    if (down || up || (lo === 0 && hi === m)) break;
  }
  // A bracket found on one side holds a root no farther than its far end; the other side can
  // only win with a bracket starting nearer than that, so it is searched that far (one point more).
  const first = down && up ? null : (down ?? up);
  if (first) {
    const reach = (first.hi - first.lo + first.near) * (1 + 1e-12);
    // Below spot a distance takes more steps than above it: count them as below.
    const steps = Math.ceil(-Math.log1p(-Math.min(reach / spot, 0.99)) / du) + 2;
    cover(Math.max(0, above - steps), Math.min(m, above + steps));
    down = scan(-1);
    up = scan(1);
  }
  const found = [down, up].filter((b) => b !== null).sort((p, q) => p.near - q.near);
  let best: number | null = null;
  for (const bracket of found) {
    if (best !== null && bracket.near > Math.abs(best - spot)) break;
    const root = refine(book, bracket, tolerance);
    const d = Math.abs(root - spot);
    if (best === null || d < Math.abs(best - spot) || (d === Math.abs(best - spot) && root < best)) best = root;
  }
  return best;
}

/** Net GEX at x and the sum of its absolute terms (the scale of its rounding error). */
function netAndGrossAt(book: GammaBook, x: number): { net: number; gross: number } {
  const { a, lnK, c, weight, n } = book;
  const u = Math.log(x);
  let net = 0;
  let gross = 0;
  for (let k = 0; k < n; k++) {
    const d = a[k]! * (u - lnK[k]!) + c[k]!;
    const t = weight[k]! * Math.exp(-0.5 * d * d);
    net += t;
    gross += Math.abs(t);
  }
  return { net: 0.01 * x * net, gross: 0.01 * x * gross };
}

/**
 * The root inside a bracket by Brent's method, evaluating only the contracts that are not
 * negligible anywhere in it (d is monotone in x, so checking both ends suffices).
 */
function refine(book: GammaBook, { lo, hi, fLo, fHi }: Bracket, tolerance: number): number {
  const { a, lnK, c, n } = book;
  const uLo = Math.log(lo);
  const uHi = Math.log(hi);
  const active = new Int32Array(n);
  let count = 0;
  for (let k = 0; k < n; k++) {
    const dLo = a[k]! * (uLo - lnK[k]!) + c[k]!;
    const dHi = a[k]! * (uHi - lnK[k]!) + c[k]!;
    if ((dLo > NEGLIGIBLE_D && dHi > NEGLIGIBLE_D) || (dLo < -NEGLIGIBLE_D && dHi < -NEGLIGIBLE_D)) continue;
    active[count++] = k;
  }
  return brentRoot((x) => netGexOf(book, x, active, count), lo, hi, fLo, fHi, tolerance);
}
