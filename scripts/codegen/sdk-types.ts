import { writeFileSync } from "node:fs";
import { SDK_TYPES_FILE, sdkTypes } from "./sdk-types-source";

/** Rewrites the SDK's generated types from the route specs' API description. */
writeFileSync(SDK_TYPES_FILE, await sdkTypes());
console.log(`${SDK_TYPES_FILE}: rewritten from the API description`);
