import { beforeAll } from "vitest";
import { waitForSharedWorker } from "./http-accounts";

/** Setup file of the system tier: the shared `wrangler dev` starts in the background; a file waits for it first. */
const START_MS = 120_000;

beforeAll(() => waitForSharedWorker(START_MS), START_MS);
