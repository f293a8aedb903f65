import vix from "../fixtures/vix/VIX_History_windows.csv?raw";

/** VIX closes from Cboe's VIX_History.csv excerpt, oldest first: `close` in percent (the index's points). */
export const vixCloses: { date: string; close: number }[] = vix
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => {
    const [mdy, , , , close] = line.split(",");
    const [m, d, y] = mdy!.split("/");
    return { date: `${y}-${m}-${d}`, close: Number(close) };
  });
