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
 * Controls by type: `boolean` ⇒ a yes/no select; `string` with `enum` or `oneOf` consts ⇒ a
 * select; an `array` whose items are an `enum` or `anyOf` consts ⇒ checkboxes; `number` and
 * `integer` ⇒ number inputs; anything else ⇒ a text input.
 */
import { esc } from "./layout";

type Schema = Record<string, unknown>;
interface Choice {
  value: string;
  label: string;
}

const isRecord = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema's properties, or none when it is not a flat object schema. */
function propertiesOf(schema: unknown): Array<[string, Schema]> {
  if (!isRecord(schema) || !isRecord(schema.properties)) {
    return [];
  }
  return Object.entries(schema.properties).map(([name, def]) => [name, isRecord(def) ? def : {}]);
}

function choicesOf(def: unknown): Choice[] | undefined {
  if (!isRecord(def)) {
    return undefined;
  }
  if (Array.isArray(def.enum)) {
    const names = Array.isArray(def.enumNames) ? def.enumNames : [];
    return def.enum.map((v, i) => ({
      value: String(v),
      label: typeof names[i] === "string" ? names[i] : String(v),
    }));
  }
  const consts = Array.isArray(def.oneOf) ? def.oneOf : Array.isArray(def.anyOf) ? def.anyOf : [];
  const choices = consts.filter((c): c is Schema => isRecord(c) && c.const !== undefined);
  return choices.length > 0
    ? choices.map((c) => ({
        value: String(c.const),
        label: typeof c.title === "string" ? c.title : String(c.const),
      }))
    : undefined;
}

/**
 * One labelled control per property, defaults prefilled; `prefix` keeps ids unique on a
 * page with several forms. Unknown shapes render nothing.
 * @example renderSchemaFields({ type: "object", properties: { n: { type: "integer", default: 3 } } })
 * // '<label for="field-0">n</label>\n<input type="number" step="1" id="field-0" name="field:n" value="3">\n'
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
      const label = `<label for="${id}">${esc(title)}${isRequired ? " *" : ""}${hint}</label>`;
      return `${label}\n${control(prop, id, `field:${name}`, isRequired)}\n`;
    })
    .join("");
}

function control(prop: Schema, id: string, name: string, isRequired: boolean): string {
  const fallback = prop.default;
  const req = isRequired ? " required" : "";
  const field = `id="${id}" name="${esc(name)}"`;
  if (prop.type === "boolean") {
    return select(field, req, [
      { value: "", label: "—", selected: fallback === undefined },
      { value: "true", label: "yes", selected: fallback === true },
      { value: "false", label: "no", selected: fallback === false },
    ]);
  }
  if (prop.type === "array") {
    const choices = choicesOf(prop.items) ?? [];
    const picked = new Set(Array.isArray(fallback) ? fallback.map(String) : []);
    return `<span id="${id}">${choices
      .map(
        (c) =>
          `<label><input type="checkbox" name="${esc(name)}" value="${esc(c.value)}"${picked.has(c.value) ? " checked" : ""}> ${esc(c.label)}</label>`,
      )
      .join(" ")}</span>`;
  }
  const choices = choicesOf(prop);
  if (choices) {
    return select(field, req, [
      { value: "", label: "—", selected: fallback === undefined },
      ...choices.map((c) => ({
        ...c,
        selected: fallback !== undefined && String(fallback) === c.value,
      })),
    ]);
  }
  const value = fallback !== undefined ? ` value="${esc(String(fallback))}"` : "";
  if (prop.type === "number" || prop.type === "integer") {
    const step = prop.type === "integer" ? "1" : "any";
    return `<input type="number" step="${step}" ${field}${value}${req}>`;
  }
  return `<input type="text" ${field}${value}${req}>`;
}

function select(
  field: string,
  req: string,
  options: Array<Choice & { selected: boolean }>,
): string {
  const items = options.map(
    (o) =>
      `<option value="${esc(o.value)}"${o.selected ? " selected" : ""}>${esc(o.label)}</option>`,
  );
  return `<select ${field}${req}>${items.join("")}</select>`;
}

/**
 * The answer's data from a submitted form: each property's `field:<name>` values, typed by
 * the schema (numbers, booleans, string arrays); an empty field is left out (its default
 * then applies). A value that does not parse stays text, for the schema check to report.
 * @example fieldsFromForm(schema, (name) => form.getAll(name))
 */
export function fieldsFromForm(
  schema: unknown,
  valuesOf: (name: string) => string[],
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, prop] of propertiesOf(schema)) {
    const values = valuesOf(`field:${name}`);
    if (prop.type === "array") {
      if (values.length > 0) {
        data[name] = values;
      }
      continue;
    }
    const value = values[0];
    if (value === undefined || value === "") {
      continue;
    }
    data[name] = typed(prop.type, value);
  }
  return data;
}

function typed(type: unknown, value: string): unknown {
  if (type === "boolean" && (value === "true" || value === "false")) {
    return value === "true";
  }
  if ((type === "number" || type === "integer") && value.trim() !== "") {
    const n = Number(value);
    return Number.isFinite(n) ? n : value;
  }
  return value;
}
