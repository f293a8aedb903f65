/** Why a control-plane call was refused; the HTTP layer maps each to an error code. */
export type ControlFailure = "not_found" | "conflict" | "key_limit" | "trial_used" | "invalid";

/** Outcomes the HTTP layer turns into responses; services never throw for expected cases. */
export type ControlResult<T> = { ok: true; value: T } | { ok: false; reason: ControlFailure; message: string };

export const noAccount = (name: string): ControlResult<never> => ({
  ok: false,
  reason: "not_found",
  message: `No account named '${name}'.`,
});
