import { secureHeaders, type ContentSecurityPolicyOptionHandler } from "hono/secure-headers";

type Sources = (string | ContentSecurityPolicyOptionHandler)[];

/**
 * The headers of every HTML page we serve (the dashboard, the API reference): scripts, styles and
 * images from our origin only, never framed, no referrer leaves it. A page widens only what it names.
 */
export function pageHeaders(page: {
  /** Sources besides our origin for stylesheets. */
  styleSrc?: Sources;
  /** Further directives (`formAction`, `fontSrc`, `workerSrc`, `connectSrc`). */
  allow?: { formAction?: Sources; fontSrc?: Sources; workerSrc?: Sources; connectSrc?: Sources };
}) {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", ...(page.styleSrc ?? [])],
      imgSrc: ["'self'", "data:"],
      ...page.allow,
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
    },
    referrerPolicy: "no-referrer",
    xFrameOptions: "DENY",
  });
}
