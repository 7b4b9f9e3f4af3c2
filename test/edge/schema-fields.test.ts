// SEP-1034 on the pages (issue 25 §2.5): an input request's fields show their schema
// defaults prefilled, on the approval page and in the approvals inbox, and a submitted form
// comes back typed by the schema, empty fields left out (the kernel then fills the default).
// The controls are plain inputs (text, or number), which keeps the worker within its budget.
import { describe, expect, it } from "vitest";
import { fieldsFromForm, renderSchemaFields } from "../../src/edge/pages/schema-fields";
import { renderApprovalPage } from "../../src/edge/approvals/page";
import { renderInboxPage } from "../../src/edge/inbox/page";
import type { InboxItem } from "../../src/edge/inbox/item";

// The defaults of @modelcontextprotocol/server-everything's trigger-elicitation-request, abridged.
const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name" },
    firstLine: { type: "string", default: "It was a dark and stormy night." },
    check: { type: "boolean", default: true },
    integer: { type: "integer", minimum: 1, maximum: 100, default: 42 },
    number: { type: "number", default: 3.14 },
    friend: { type: "string", enum: ["Monica", "Rachel"], default: "Rachel" },
    hero: {
      type: "string",
      oneOf: [
        { const: "hero-1", title: "Superman" },
        { const: "hero-2", title: "Wonder Woman" },
      ],
      default: "hero-2",
    },
    fish: {
      type: "array",
      items: {
        anyOf: [
          { const: "fish-1", title: "Tuna" },
          { const: "fish-2", title: "Salmon" },
        ],
      },
      default: ["fish-1"],
    },
    pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"] },
  },
  required: ["name"],
};

function expectPrefilled(html: string, prefix: string) {
  expect(html).toContain(`<input type="text" id="${prefix}-0" name="field:name" required>`);
  expect(html).toContain(
    `<input type="text" id="${prefix}-1" name="field:firstLine" value="It was a dark and stormy night.">`,
  );
  expect(html).toContain(`<input type="text" id="${prefix}-2" name="field:check" value="true">`);
  expect(html).toContain(
    `<input type="number" step="any" id="${prefix}-3" name="field:integer" value="42">`,
  );
  expect(html).toContain(
    `<input type="number" step="any" id="${prefix}-4" name="field:number" value="3.14">`,
  );
  expect(html).toContain(`<input type="text" id="${prefix}-5" name="field:friend" value="Rachel">`);
  expect(html).toContain(`<input type="text" id="${prefix}-6" name="field:hero" value="hero-2">`);
  expect(html).toContain(`<input type="text" id="${prefix}-7" name="field:fish" value="fish-1">`);
  expect(html).toContain(`<input type="text" id="${prefix}-8" name="field:pet">`);
}

describe("schema fields", () => {
  it("every control shows its default prefilled", () => {
    expectPrefilled(renderSchemaFields(SCHEMA), "field");
  });

  it("a submitted form is typed by the schema; empty fields are left out for their defaults", () => {
    const form = new URLSearchParams([
      ["field:name", "Ada"],
      ["field:firstLine", ""],
      ["field:check", "false"],
      ["field:integer", "7"],
      ["field:number", " "],
      ["field:friend", "Monica"],
      ["field:fish", "fish-1, fish-2"],
      ["field:unknown", "ignored"],
    ]);
    expect(fieldsFromForm(SCHEMA, (name) => form.get(name) ?? undefined)).toEqual({
      name: "Ada",
      check: false,
      integer: 7,
      friend: "Monica",
      fish: ["fish-1", "fish-2"],
    });
    // A value that does not parse stays text, so the schema check names it.
    const bad = new URLSearchParams([
      ["field:integer", "seven"],
      ["field:check", "maybe"],
    ]);
    expect(fieldsFromForm(SCHEMA, (name) => bad.get(name) ?? undefined)).toEqual({
      integer: "seven",
      check: "maybe",
    });
  });

  it("the approval page shows an input request's defaults prefilled", () => {
    const html = renderApprovalPage({
      prompt: "Please provide inputs",
      kind: "input",
      args: null,
      runId: "run_1",
      requestId: "eli_1",
      actionPath: "/approve/t",
      data: { schema: SCHEMA },
    });
    expectPrefilled(html, "field");
  });

  it("the inbox shows an input request's fields, defaults prefilled, inside its Approve form", () => {
    const now = new Date().toISOString();
    const item: InboxItem = {
      requestId: "eli_1",
      runId: "run_1",
      threadId: "t_1",
      agent: "crm",
      input: "update my details",
      requestedBy: null,
      tool: "crm_update",
      args: null,
      argsHash: "h",
      editedBy: null,
      metadata: null,
      prompt: "Please provide inputs",
      kind: "input",
      schema: SCHEMA,
      expiresAt: null,
      groups: ["default"],
      status: "open",
      event: "surfaced",
      votes: [],
      needed: null,
      decision: null,
      surfacedAt: now,
      updatedAt: now,
      version: 1,
    };
    const html = renderInboxPage({
      member: "ann",
      groups: ["default"],
      open: [item],
      decided: [],
      csrf: "c",
      now: Date.now(),
    });
    expectPrefilled(html, "field-eli_1");
    const approveForm = html.slice(
      html.indexOf('action="/inbox/decide"'),
      html.indexOf("Approve</button>"),
    );
    expect(approveForm).toContain('name="field:integer"');
    // An approval shows no fields.
    const approval = renderInboxPage({
      member: "ann",
      groups: ["default"],
      open: [{ ...item, kind: "approval" }],
      decided: [],
      csrf: "c",
      now: Date.now(),
    });
    expect(approval).not.toContain('name="field:');
  });
});
