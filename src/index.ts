import { newApp } from "./app";
import type { Bindings } from "./env";
import { routes } from "./routes";

const app = newApp(routes);

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Bindings>;
