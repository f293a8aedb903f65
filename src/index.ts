import { newApp } from "./app";
import { useNeonEndpoint } from "./db/client";
import { configFrom, type Bindings } from "./env";
import { routes } from "./routes";

const app = newApp(routes);

export default {
  fetch(request, env, ctx) {
    useNeonEndpoint(configFrom(env).NEON_HTTP_ENDPOINT);
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Bindings>;
