import type { AppEnv } from "../app-env";
import type { DashboardSession } from "./sessions";

/** The app's environment on the dashboard's pages: the signed-in user is set behind sign-in. */
export interface DashboardEnv extends AppEnv {
  Variables: AppEnv["Variables"] & {
    /** The signed-in dashboard user, set on the pages behind sign-in (`requireSession`). */
    session: DashboardSession;
  };
}
