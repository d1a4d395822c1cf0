// Rewrites of the generated OpenAPI document so clients generated from it (openapi-typescript, the
// reference's generator) type the wire as it is: zod-to-openapi's forms that such generators misread
// are replaced by equivalent ones they read right.
type Json = Record<string, unknown>;
type Schema = Json & { properties?: Record<string, Json>; required?: string[] };
interface Document {
  paths?: Record<string, Record<string, Json>>;
  components?: { schemas?: Record<string, Schema> };
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function visit(node: unknown, f: (schema: Json) => void): void {
  if (Array.isArray(node)) for (const item of node) visit(item, f);
  else if (isObject(node)) {
    f(node);
    for (const value of Object.values(node)) visit(value, f);
  }
}

/**
 * `{allOf: [{$ref}, {type: [.., "null"]}]}` (zod-to-openapi's nullable reference) requires the value to
 * match both, which excludes null: emit `{anyOf: [{$ref}, {type: "null"}]}`, OpenAPI 3.1's nullable form.
 */
export function nullableReferences(document: object): void {
  visit(document, (schema) => {
    const all = schema.allOf;
    if (!Array.isArray(all) || all.length !== 2) return;
    const [ref, nullable] = all as [Json, Json];
    const nullType = Array.isArray(nullable.type) && nullable.type.includes("null") && Object.keys(nullable).length === 1;
    if (typeof ref.$ref !== "string" || !nullType) return;
    delete schema.allOf;
    schema.anyOf = [ref, { type: "null" }];
  });
}

/** Names of the component schemas a part of the document refers to, directly or through other components. */
function reachable(document: Document, roots: unknown[]): Set<string> {
  const schemas = document.components?.schemas ?? {};
  const found = new Set<string>();
  const pending = [...roots];
  while (pending.length) {
    visit(pending.pop(), (node) => {
      if (typeof node.$ref !== "string") return;
      const name = node.$ref.split("/").pop()!;
      if (found.has(name)) return;
      found.add(name);
      pending.push(schemas[name]);
    });
  }
  return found;
}

function operations(document: Document): Json[] {
  return Object.values(document.paths ?? {}).flatMap((item) => Object.values(item).filter(isObject));
}

/**
 * Request bodies: a property that is not required and defaults to null may simply be left out, but
 * openapi-typescript makes every property with a `default` required; without the (implied) null
 * default it is optional, as it is on the wire.
 *
 * Responses: a property with a default is always present in what the server sends: say so with
 * `required`, so generators that make defaulted properties optional still type responses exactly.
 */
export function requiredMatchesTheWire(generated: object): void {
  const document = generated as Document;
  const ops = operations(document);
  const requests = reachable(
    document,
    ops.map((op) => [op.requestBody, op.parameters]),
  );
  const responses = reachable(
    document,
    ops.map((op) => op.responses),
  );
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    const inRequests = requests.has(name);
    const inResponses = responses.has(name);
    if (inRequests === inResponses) continue;
    visit(schema, (node) => {
      const properties = (node as Schema).properties;
      if (!isObject(properties)) return;
      const required = new Set((node as Schema).required ?? []);
      for (const [key, property] of Object.entries(properties)) {
        if (!isObject(property) || !("default" in property) || required.has(key)) continue;
        if (inRequests && property.default === null) delete property.default;
        if (inResponses) required.add(key);
      }
      if (required.size) (node as Schema).required = [...required];
    });
  }
}
