import { ADMIN_TOKEN } from "./accounts";

/** Admin request options: the bearer token (the configured one unless given) from a client address of the test's choosing. */
export const adminAuthFrom = (ip: string, token = ADMIN_TOKEN) => ({
  headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": ip },
});
