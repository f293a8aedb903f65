import { describe, expect, it } from "vitest";
import { HubInterests } from "../../src/streams/hub-interests";

describe("HubInterests", () => {
  it("forgets what a hub no longer holds among the keys a delivery was sent for, never one registered since", () => {
    const interests = new HubInterests<string>({ h1: { a: "A", b: "B" } });
    const [[, , addressed]] = interests.byHub() as [[string, string[], string[]]];
    // Registered while the delivery was on its way: the hub's answer cannot name it yet.
    interests.add("h1", "c", "C");
    expect(interests.keepOnly("h1", addressed, ["a"])).toBe(false);
    expect(interests.toJSON()).toEqual({ h1: { a: "A", c: "C" } });
    expect(interests.keepOnly("h1", ["a", "c"], [])).toBe(true);
    expect(interests.has("h1")).toBe(false);
  });

  it("removes one subscription and the hub with its last; round-trips through storage", () => {
    const interests = new HubInterests<number>();
    interests.add("h1", "a", 1);
    interests.add("h2", "b", 2);
    expect(interests.remove("h1", "zzz")).toBe(false);
    expect(interests.remove("h1", "a")).toBe(true);
    expect(interests.size).toBe(1);
    expect(new HubInterests(interests.toJSON()).all()).toEqual([2]);
  });
});
