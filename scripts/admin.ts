import { generateAdminToken } from "../src/domain/admin-token";
import { SUBSCRIPTION_STATUSES } from "../src/domain/subscription-status";
import type { AdminAccount, CreateAccountInput, SetSubscriptionInput, AdminKey, AdminKeys, NewKey } from "../src/routes/admin/contracts";
import { AdminClient, type AdminResult } from "../ingest/admin-api/admin-client";

const USAGE = `usage: npm run admin -- <command> [--json]

  account create --name N [--status ${[...SUBSCRIPTION_STATUSES, "none"].join("|")}] [--plan P] [--trial-ended]
  account show --name N
  key create --account N          prints the key once
  key list --account N
  key revoke KEY_ID
  subscription set --account N --status S [--plan P] [--trial-ended]
  token                           prints a new admin token (ods_admin_…) for the ADMIN_TOKEN secret; no call is made

Talks to the admin API of the running service: ADMIN_URL (default http://127.0.0.1:8787; https://
unless on this machine) with ADMIN_TOKEN (default: the token \`npm run dev\` saved in .dev/admin-token).`;

const BOOLEAN_FLAGS = new Set(["json", "trial-ended", "help"]);

function parse(argv: string[]): { positionals: string[]; flags: Map<string, string> } {
  const positionals: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const name = arg.slice(2);
    if (BOOLEAN_FLAGS.has(name)) flags.set(name, "true");
    else {
      const value = argv[++i];
      if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value`);
      flags.set(name, value);
    }
  }
  return { positionals, flags };
}

function required(flags: Map<string, string>, name: string): string {
  const value = flags.get(name);
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

function human(command: string, body: unknown): string {
  if (command === "key create") {
    const k = body as NewKey;
    return `key ${k.id} created; store it now, it will not be shown again:\n${k.key}`;
  }
  if (command === "key list") {
    const keys = body as AdminKeys;
    if (keys.length === 0) return "no keys";
    return keys
      .map((k) => `${String(k.id).padStart(6)}  ${k.prefix}…  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ""}`)
      .join("\n");
  }
  if (command === "key revoke") return `key ${(body as AdminKey).id} revoked`;
  const a = body as AdminAccount;
  const sub = a.subscription
    ? `${a.subscription.plan} (${a.subscription.status}${a.subscription.trialEnd ? `, trial ends ${a.subscription.trialEnd}` : ""})`
    : "no subscription";
  return `account ${a.name} (id ${a.id}): ${sub}`;
}

async function run(argv: string[]): Promise<number> {
  const { positionals, flags } = parse(argv);
  const json = flags.has("json");
  const command = positionals.slice(0, 2).join(" ");
  if (flags.has("help") || positionals.length === 0) {
    console.log(USAGE);
    return 0;
  }
  if (command === "token") {
    // Printed once, to stdout only: pipe it into \`wrangler secret put ADMIN_TOKEN\`.
    const token = generateAdminToken();
    console.log(json ? JSON.stringify({ token }) : token);
    return 0;
  }
  const client = AdminClient.fromEnvironment();
  const trialEnded = flags.has("trial-ended") ? true : undefined;
  let result: AdminResult<unknown>;
  switch (command) {
    case "account create":
      result = await client.createAccount({
        name: required(flags, "name"),
        // The admin API validates the status and answers which ones it takes.
        status: flags.get("status") as CreateAccountInput["status"],
        plan: flags.get("plan"),
        trialEnded,
      });
      break;
    case "account show":
      result = await client.showAccount(required(flags, "name"));
      break;
    case "key create":
      result = await client.createKey(required(flags, "account"));
      break;
    case "key list":
      result = await client.listKeys(required(flags, "account"));
      break;
    case "key revoke": {
      const id = Number(positionals[2]);
      if (!Number.isInteger(id) || id <= 0) throw new Error("key revoke needs a numeric KEY_ID");
      result = await client.revokeKey(id);
      break;
    }
    case "subscription set":
      result = await client.setSubscription(required(flags, "account"), {
        status: required(flags, "status") as SetSubscriptionInput["status"],
        plan: flags.get("plan"),
        trialEnded,
      });
      break;
    default:
      throw new Error(`unknown command '${command}'\n\n${USAGE}`);
  }
  if (json) console.log(JSON.stringify(result.body));
  else if (result.ok) console.log(human(command, result.body));
  else console.error(`error: ${result.body.message} (${result.body.error})`);
  return result.ok ? 0 : 1;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    if (process.argv.includes("--json")) console.log(JSON.stringify({ error: "cli_error", message }));
    else console.error(message);
    process.exit(2);
  },
);
