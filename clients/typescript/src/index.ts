// Package @heraldhq/client: a typed client of Herald's REST API. The
// types in schema.d.ts are generated from Herald's OpenAPI document
// (npm run generate), which declares every request rule the server
// checks, so a call that omits a required field or passes a value
// outside the allowed ones does not compile.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

/** A Herald client: GET, POST, PUT, DELETE by path, typed from the document. */
export type HeraldClient = Client<paths>;

/** Options of createHeraldClient: the base URL and the workspace's API key. */
export interface HeraldOptions extends Omit<ClientOptions, "baseUrl"> {
  /** Where Herald listens, such as http://127.0.0.1:8080. */
  baseUrl: string;
  /** A workspace API key (hk_...): `herald keys create --workspace NAME`. */
  apiKey?: string;
}

/** createHeraldClient returns a client that sends the api-key header on every call. */
export function createHeraldClient(options: HeraldOptions): HeraldClient {
  const { apiKey, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...(apiKey ? { "api-key": apiKey } : {}), ...(headers as Record<string, string> | undefined) },
  });
}
