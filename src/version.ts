import pkg from "../package.json";

/** Version of the deployed service (package version). */
export const SERVICE_VERSION: string = pkg.version;
/** Version of the public API contract declared in the API description. */
export const API_VERSION = "1.0.0";
