import { and, eq, sql } from "drizzle-orm";
import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import { accounts, identities } from "../db/schema";
import type { Commit } from "./commit";

/** A person as a single-sign-on provider vouches for them. */
export interface SignInIdentity {
  issuer: string;
  subject: string;
  email: string | null;
}

/** Single-sign-on identities and the accounts they sign in to. */
export class Identities {
  constructor(
    private readonly db: Database,
    private readonly commit: Commit,
  ) {}

  /**
   * The account of a single-sign-on identity, created with the identity on its first sign-in. The
   * name derives from issuer and subject, so two concurrent first sign-ins create one account.
   */
  async signIn(identity: SignInIdentity): Promise<{ id: number; name: string }> {
    const name = `sso-${(await sha256Hex(`${identity.issuer}\n${identity.subject}`)).slice(0, 20)}`;
    const linked = await this.#linkedAccount(identity.issuer, identity.subject);
    if (linked) return linked;
    await this.commit(
      sql`(select ${identities.accountId} from ${identities}
        where ${identities.issuer} = ${identity.issuer} and ${identities.subject} = ${identity.subject})`,
      [
        this.db.execute(sql`
          with account as (
            insert into accounts (name) values (${name})
            on conflict (name) do update set name = excluded.name
            returning id)
          insert into identities (account_id, issuer, subject, email)
          select id, ${identity.issuer}, ${identity.subject}, ${identity.email} from account
          on conflict (issuer, subject) do nothing`),
      ],
    );
    const row = await this.#linkedAccount(identity.issuer, identity.subject);
    if (!row) throw new Error("identity link not found after insert");
    return row;
  }

  async #linkedAccount(issuer: string, subject: string): Promise<{ id: number; name: string } | undefined> {
    const [row] = await this.db
      .select({ id: accounts.id, name: accounts.name })
      .from(identities)
      .innerJoin(accounts, eq(accounts.id, identities.accountId))
      .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)));
    return row;
  }
}
