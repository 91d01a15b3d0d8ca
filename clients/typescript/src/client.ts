/**
 * A typed client of Card Referee: openapi-fetch over the types openapi-typescript
 * generates from openapi.yaml (`npm run generate` writes src/schema.d.ts).
 *
 *   const api = connect("http://127.0.0.1:8000");
 *   const { data, error } = await api.POST("/v1/games", { body: { game: "halves" } });
 *
 * Every path, parameter, body and reply is typed by the contract: a wrong action type,
 * a missing If-Match or a misspelt field is a compile error, and `error` is the
 * problem+json body of a refusal.
 */
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type Action = Schemas["Action"];
export type CreateGame = Schemas["CreateGame"];
export type CreatedGame = Schemas["CreatedGame"];
export type Problem = Schemas["Problem"];

/** A client of the API at `baseUrl`, sending `token` as the bearer token if given. */
export function connect(baseUrl: string, token?: string): Client<paths> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  return createClient<paths>({ baseUrl, headers });
}
