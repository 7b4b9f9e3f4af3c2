/**
 * The fields of an `input` request's flat JSON Schema (an MCP form elicitation's
 * `requestedSchema`) as HTML form controls, and the submitted form back as typed data:
 * shared by the approval page and the approvals inbox.
 *
 * SEP-1034: each field shows its schema `default` prefilled (a text or number value, the
 * selected option, the checked boxes), so a person sees what an untouched field answers. A
 * field left empty is left out of the answer, and the kernel then fills in the schema's
 * `default` before the server gets it (src/core/mcp/elicitation.ts).
 *
 * One input per field: a number input for `number` and `integer`, else text (a boolean as
 * `true`/`false`, an array as comma-separated values).
 * Plain controls keep the worker small; the form is read back typed by the schema.
 */
import { esc } from "./layout";

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema's properties, or none when it is not a flat object schema. */
function propertiesOf(schema: unknown): Array<[string, Schema]> {
  return isRecord(schema) && isRecord(schema.properties)
    ? Object.entries(schema.properties).map(([name, def]) => [name, isRecord(def) ? def : {}])
    : [];
}

/**
 * One labelled input per property, its default prefilled; `prefix` keeps ids unique on a
 * page with several forms. Unknown shapes render nothing.
 * @example renderSchemaFields({ type: "object", properties: { n: { type: "integer", default: 3 } } })
 * // '<label for="field-0">n</label>\n<input type="number" step="any" id="field-0" name="field:n" value="3">\n'
 */
export function renderSchemaFields(schema: unknown, prefix = "field"): string {
  const required: unknown[] =
    isRecord(schema) && Array.isArray(schema.required) ? schema.required : [];
  return propertiesOf(schema)
    .map(([name, prop], index) => {
      const title = typeof prop.title === "string" ? prop.title : name;
      const hint =
        typeof prop.description === "string"
          ? ` <span class="hint">${esc(prop.description)}</span>`
          : "";
      const isRequired = required.includes(name);
      const id = `${prefix}-${index}`; // ids from an index: property names may hold any character
      const type = prop.type === "number" || prop.type === "integer" ? 'number" step="any' : "text";
      const value = prop.default === undefined ? "" : ` value="${esc(String(prop.default))}"`;
      return `<label for="${id}">${esc(title)}${isRequired ? " *" : ""}${hint}</label>
<input type="${type}" id="${id}" name="field:${esc(name)}"${value}${isRequired ? " required" : ""}>
`;
    })
    .join("");
}

/**
 * The answer's data from a submitted form, typed by the schema: numbers, booleans
 * (`true`/`false`), arrays (comma-separated); an empty field is left out (its default then
 * applies). A value that does not parse stays text, for the schema check to report.
 * @example fieldsFromForm(schema, (name) => form.get(name) ?? undefined)
 */
export function fieldsFromForm(
  schema: unknown,
  read: (name: string) => string | undefined,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, { type }] of propertiesOf(schema)) {
    const value = read(`field:${name}`)?.trim();
    if (!value) {
      continue;
    }
    const n = Number(value);
    data[name] =
      type === "array"
        ? value.split(/\s*,\s*/)
        : type === "boolean" && /^(true|false)$/.test(value)
          ? value === "true"
          : (type === "number" || type === "integer") && Number.isFinite(n)
            ? n
            : value;
  }
  return data;
}
