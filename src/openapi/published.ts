import type { DescriptionSource } from "../app-env";
import { sha256Hex } from "../crypto/sha256";
import type { RouteSpec } from "../http/route";
import { buildOpenApiDocument } from "./document";

export interface PublishedDocument {
  body: string;
  /** Strong validator: the first 32 hex digits of the body's SHA-256. */
  etag: string;
}

/** The description of one app's routes, serialised and hashed on first use, then kept for the isolate's life. */
export class ApiDescription implements DescriptionSource {
  #published: PublishedDocument | undefined;

  constructor(private readonly routes: readonly RouteSpec[]) {}

  async published(): Promise<PublishedDocument> {
    if (!this.#published) {
      const body = JSON.stringify(buildOpenApiDocument(this.routes));
      // Kept as a value, never a promise shared across requests.
      this.#published = { body, etag: `"${(await sha256Hex(body)).slice(0, 32)}"` };
    }
    return this.#published;
  }
}
