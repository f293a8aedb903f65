import { AdminClient } from "./admin-client";

/**
 * After a load, tells the running service (ADMIN_URL/ADMIN_TOKEN, else the local `npm run dev`) to
 * serve the new snapshot at once. Without a reachable service nothing is lost: every edge reads
 * the new version within 60 s on its own.
 */
export async function tellEdge(): Promise<string> {
  try {
    const result = await AdminClient.fromEnvironment().refreshSnapshot();
    return result.ok ? `the service serves snapshot v${result.body.version} now` : `the service refused the refresh (${result.status})`;
  } catch {
    return "no running service told; it serves the new snapshot within 60 s";
  }
}
