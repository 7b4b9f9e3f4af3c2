/**
 * Approver groups (docs/architecture.md §6 "Groups"): `createEdge({ approverGroups })` and the
 * `APPROVER_GROUPS` variable (JSON), same shape; code wins per group. A member is one
 * person whatever identity they use (email, `slack:T/U`, their id), so votes count per
 * member. Emails compare case-insensitively.
 */
import { groupsOf, isRecord, type Rules } from "../../core/approvers/rules";
import { ConfigError } from "../config-error";
import { isUrl } from "../settings/teams";
import { MAX_IDENTITY_CHARS } from "../http/schemas";

/** A member: an identity (`"ann@example.com"`) or an id with the identities that are theirs. */
export type ApproverMemberInit = string | { id: string; identities?: string[] };
/**
 * A bare array means `members`. `slack.channel` is where the group's requests are posted;
 * `teams` the Microsoft Teams conversation (and its Bot Connector `serviceUrl`) that gets a card.
 */
export type ApproverGroupInit =
  | ApproverMemberInit[]
  | {
      members: ApproverMemberInit[];
      slack?: { channel: string };
      teams?: { conversation: string; serviceUrl: string };
    };
export type ApproverGroupsInit = Record<string, ApproverGroupInit>;

export interface ApproverMember {
  id: string;
  identities: string[];
}

export interface ApproverGroup {
  name: string;
  members: ApproverMember[];
  slack?: { channel: string };
  teams?: { conversation: string; serviceUrl: string };
}

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Identities compare after NFKC normalisation (a full-width `ａｎｎ` is `ann`); emails
 * case-insensitively; other identities (`slack:T1/U2`, ids) exactly.
 */
export function normalizeIdentity(identity: string): string {
  const trimmed = identity.normalize("NFKC").trim();
  return trimmed.includes("@") && !trimmed.includes(":") ? trimmed.toLowerCase() : trimmed;
}

/**
 * Whether an identity could pass for another one: letters of more than one script
 * (`ann@exаmple.com` with a Cyrillic `а`), or invisible format characters (zero-width
 * joiners, bidirectional overrides). Such an identity is never a member and is refused
 * in a group's definition, so nobody is recorded under a name that only looks like ann's.
 */
export function isConfusable(identity: string): boolean {
  const text = identity.normalize("NFKC");
  if (/\p{Cf}/u.test(text)) {
    return true;
  }
  const scripts = new Set<string>();
  for (const char of text) {
    const script = SCRIPTS.find((s) => s.pattern.test(char));
    if (script) {
      scripts.add(script.name);
    } else if (/\p{L}/u.test(char)) {
      scripts.add("other");
    }
  }
  return scripts.size > 1;
}

/** The scripts whose letters pass for Latin ones most often (UTS #39's usual suspects). */
const SCRIPTS = [
  { name: "latin", pattern: /\p{Script=Latin}/u },
  { name: "cyrillic", pattern: /\p{Script=Cyrillic}/u },
  { name: "greek", pattern: /\p{Script=Greek}/u },
  { name: "armenian", pattern: /\p{Script=Armenian}/u },
  { name: "cherokee", pattern: /\p{Script=Cherokee}/u },
];

/** Who may decide what: the groups, and which member every identity belongs to. */
export class ApproverDirectory {
  readonly #identities = new Map<string, string>();

  constructor(readonly groups: ReadonlyMap<string, ApproverGroup>) {
    for (const group of groups.values()) {
      for (const member of group.members) {
        for (const identity of [member.id, ...member.identities]) {
          const owner = this.#identities.get(identity);
          if (owner !== undefined && owner !== member.id) {
            throw new ConfigError(
              `approver groups: identity ${JSON.stringify(identity)} belongs to two members (${JSON.stringify(owner)} and ${JSON.stringify(member.id)})`,
            );
          }
          this.#identities.set(identity, member.id);
        }
      }
    }
  }

  /** Member ids of a group; undefined when no such group is defined. */
  membersOf(group: string): string[] | undefined {
    return this.groups.get(group)?.members.map((m) => m.id);
  }

  /** The member an identity (or member id) belongs to; undefined for a stranger or a confusable. */
  memberOf(identity: string): string | undefined {
    if (isConfusable(identity)) {
      return undefined;
    }
    return this.#identities.get(normalizeIdentity(identity));
  }

  /** The member id to record for an identity: its member's, else the normalized identity. */
  resolve(identity: string): string {
    return this.memberOf(identity) ?? normalizeIdentity(identity);
  }

  /** The groups a member belongs to. */
  groupsOfMember(memberId: string): string[] {
    return [...this.groups.values()]
      .filter((g) => g.members.some((m) => m.id === memberId))
      .map((g) => g.name);
  }

  /**
   * Every group a rule names must exist: else `config_error` naming agent, tool and group.
   */
  checkRules(rules: Rules, where: { agent: string; tool: string }): void {
    for (const name of groupsOf(rules)) {
      if (!this.groups.has(name)) {
        throw new ConfigError(
          `agent ${JSON.stringify(where.agent)}, tool ${JSON.stringify(where.tool)}: approver group ${JSON.stringify(name)} is not defined (define it in APPROVER_GROUPS or createEdge({ approverGroups }))`,
        );
      }
    }
  }
}

/** Parses one source of groups; anything malformed is a `ConfigError` naming the source and group. */
export function parseApproverGroups(value: unknown, source: string): Map<string, ApproverGroup> {
  if (!isRecord(value)) {
    throw new ConfigError(
      `${source} must be an object of groups, like {"finance": ["ann@example.com"]}`,
    );
  }
  const groups = new Map<string, ApproverGroup>();
  for (const [name, init] of Object.entries(value)) {
    const where = `${source}.${name}`;
    if (!GROUP_NAME.test(name)) {
      throw new ConfigError(
        `${source}: group name ${JSON.stringify(name)} must match ${GROUP_NAME}`,
      );
    }
    groups.set(name, parseGroup(name, init, where));
  }
  return groups;
}

function parseGroup(name: string, init: unknown, where: string): ApproverGroup {
  const body = Array.isArray(init) ? { members: init } : init;
  if (!isRecord(body)) {
    throw new ConfigError(`${where} must be a list of members or { members, slack?, teams? }`);
  }
  for (const key of Object.keys(body)) {
    if (key !== "members" && key !== "slack" && key !== "teams") {
      throw new ConfigError(`${where}.${key} is not a group setting (members, slack, teams)`);
    }
  }
  if (!Array.isArray(body.members) || body.members.length === 0) {
    throw new ConfigError(`${where}.members must be a non-empty list`);
  }
  const byId = new Map<string, ApproverMember>();
  body.members.forEach((m, i) => {
    const member = parseMember(m, `${where}.members[${i}]`);
    const known = byId.get(member.id);
    byId.set(
      member.id,
      known
        ? { id: member.id, identities: [...new Set([...known.identities, ...member.identities])] }
        : member,
    );
  });
  const group: ApproverGroup = { name, members: [...byId.values()] };
  if (body.slack !== undefined) {
    const channel = isRecord(body.slack) ? body.slack.channel : undefined;
    if (typeof channel !== "string" || channel.trim() === "") {
      throw new ConfigError(`${where}.slack must be { "channel": "C0123…" }`);
    }
    group.slack = { channel: channel.trim() };
  }
  if (body.teams !== undefined) {
    group.teams = parseTeams(body.teams, `${where}.teams`);
  }
  return group;
}

/** `{ conversation, serviceUrl }`: where the group's Teams cards go (the bot must be in it). */
function parseTeams(init: unknown, where: string): { conversation: string; serviceUrl: string } {
  const conversation = isRecord(init) ? init.conversation : undefined;
  const serviceUrl = isRecord(init) ? init.serviceUrl : undefined;
  if (
    typeof conversation !== "string" ||
    conversation.trim() === "" ||
    typeof serviceUrl !== "string" ||
    !isUrl(serviceUrl)
  ) {
    throw new ConfigError(
      `${where} must be { "conversation": "19:…@thread.tacv2", "serviceUrl": "https://smba.trafficmanager.net/…/" }`,
    );
  }
  return { conversation: conversation.trim(), serviceUrl: serviceUrl.replace(/\/?$/, "/") };
}

function parseMember(init: unknown, where: string): ApproverMember {
  if (typeof init === "string") {
    const id = identity(init, where);
    return { id, identities: [] };
  }
  if (!isRecord(init)) {
    throw new ConfigError(`${where} must be an identity string or { id, identities }`);
  }
  for (const key of Object.keys(init)) {
    if (key !== "id" && key !== "identities") {
      throw new ConfigError(`${where}.${key} is not a member setting (id, identities)`);
    }
  }
  const id = identity(init.id, `${where}.id`);
  if (init.identities !== undefined && !Array.isArray(init.identities)) {
    throw new ConfigError(`${where}.identities must be a list of strings`);
  }
  const identities = ((init.identities ?? []) as unknown[]).map((x, i) =>
    identity(x, `${where}.identities[${i}]`),
  );
  return { id, identities: [...new Set(identities)].filter((x) => x !== id) };
}

function identity(value: unknown, where: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigError(`${where} must be a non-empty string`);
  }
  if (value.length > MAX_IDENTITY_CHARS) {
    throw new ConfigError(`${where} is longer than ${MAX_IDENTITY_CHARS} characters`);
  }
  if (isConfusable(value)) {
    throw new ConfigError(
      `${where} mixes scripts or holds invisible characters (${JSON.stringify(value)}): it could pass for another identity`,
    );
  }
  return normalizeIdentity(value);
}

/**
 * The directory from `APPROVER_GROUPS` (JSON) and the code's `approverGroups`; a group
 * defined in both is the code's. Read through `settings(env).approvers(code)`, which keeps
 * it per environment object.
 */
export function parseApproverDirectory(
  env: { APPROVER_GROUPS?: string },
  code?: ApproverGroupsInit,
): ApproverDirectory {
  const text = env.APPROVER_GROUPS?.trim() ?? "";
  const fromEnv = text === "" ? [] : parseApproverGroups(parseJson(text), "APPROVER_GROUPS");
  const fromCode = code ? parseApproverGroups(code, "approverGroups") : [];
  return new ApproverDirectory(new Map([...fromEnv, ...fromCode]));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`APPROVER_GROUPS is not valid JSON: ${(error as Error).message}`);
  }
}
