import { describe, expect, it } from "vitest";
import { LruMemory } from "../../src/edge-cache/lru-memory";

describe("isolate memory of snapshot-derived values", () => {
  it("evicts the least recently used entries once the budget is passed", () => {
    const memory = new LruMemory(800);
    memory.set("a", 1, 100);
    memory.set("b", 2, 100);
    for (let i = 0; i < 6; i++) memory.set(`c${i}`, i, 100);
    expect(memory.get("a")).toBe(1); // a is now the most recently used; b is the coldest
    memory.set("d", 4, 100);
    expect(memory.get("b")).toBeUndefined();
    expect(memory.get("a")).toBe(1);
    expect(memory.get("d")).toBe(4);
  });

  it("does not keep a value larger than an eighth of the budget", () => {
    const memory = new LruMemory(800);
    memory.set("small", 1, 100);
    memory.set("large", 2, 101);
    expect(memory.get("large")).toBeUndefined();
    expect(memory.get("small")).toBe(1);
  });

  it("counts a replaced entry once", () => {
    const memory = new LruMemory(800);
    for (let i = 0; i < 20; i++) memory.set("same", i, 100);
    for (let i = 0; i < 7; i++) memory.set(`k${i}`, i, 100);
    expect(memory.get("same")).toBe(19);
    expect(memory.get("k0")).toBe(0);
  });
});
