/**
 * Every file `toolnexus-edge init` writes, by path: a worker project that installs, type-checks,
 * starts under `wrangler dev` and passes its own test as written (scripts/starter-check.mjs
 * does exactly that in CI, from the packed package).
 */
import { devVars } from "./dev-vars";
import { STARTER_TEST } from "./test-template";
import { WORKER_AGENTS, WORKER_DEMO_MODELS, workerIndex } from "./worker-template";
import { wranglerToml } from "./wrangler-template";

/** What the project depends on: this package's version, and its own pinned dev tools. */
export interface StarterVersions {
  toolnexusEdge: string;
  wrangler: string;
  typescript: string;
  workersTypes: string;
}

export function projectFiles(name: string, versions: StarterVersions): Record<string, string> {
  return {
    "package.json": `${JSON.stringify(
      {
        name,
        private: true,
        type: "module",
        scripts: {
          dev: "wrangler dev",
          types: "wrangler types --include-runtime false",
          typecheck: "wrangler types --include-runtime false && tsc --noEmit",
          test: "node --test test/refund.test.mjs",
          deploy: "wrangler deploy",
        },
        dependencies: { "toolnexus-edge": `^${versions.toolnexusEdge}` },
        devDependencies: {
          "@cloudflare/workers-types": versions.workersTypes,
          typescript: versions.typescript,
          wrangler: versions.wrangler,
        },
      },
      null,
      2,
    )}\n`,
    "wrangler.toml": wranglerToml(name),
    "tsconfig.json": `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "bundler",
          lib: ["ES2022"],
          types: ["@cloudflare/workers-types"],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          verbatimModuleSyntax: true,
          isolatedModules: true,
          noEmit: true,
        },
        include: ["src", "worker-configuration.d.ts"],
      },
      null,
      2,
    )}\n`,
    ".dev.vars": devVars(),
    ".gitignore": "node_modules/\n.wrangler/\n.dev.vars\n",
    "src/index.ts": workerIndex(name),
    "src/agents.ts": WORKER_AGENTS,
    "src/demo-models.ts": WORKER_DEMO_MODELS,
    "test/refund.test.mjs": STARTER_TEST,
    "README.md": readme(name),
  };
}

function readme(name: string): string {
  return `# ${name}

A worker on [toolnexus-edge](https://www.npmjs.com/package/toolnexus-edge), made by
\`toolnexus-edge init\`. \`desk\` answers customers and hands refunds to its sub-agent
\`billing\`; every refund waits for a person's approval (src/agents.ts).

\`\`\`sh
npm install
npm run typecheck   # wrangler types + strict tsc
npm test            # starts wrangler dev, suspends a refund, approves it by signed webhook, sees it finish
npm run dev         # http://localhost:8787, with the secrets .dev.vars holds
\`\`\`

Then, with \`npm run dev\` running, in another terminal:

\`\`\`sh
TOKEN=$(grep '^API_TOKEN=' .dev.vars | cut -d= -f2-)
RUN=$(curl -s localhost:8787/v1/runs -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -d '{"agent":"desk","input":"Refund $120 on order 42"}' | jq -r .runId)
curl -s localhost:8787/v1/runs/$RUN -H "authorization: Bearer $TOKEN" | jq '{status, pending}'
npx toolnexus-edge sign-decision --run $RUN --request <pending.id> --decision approve --send http://localhost:8787
\`\`\`

\`.dev.vars\` holds freshly generated secrets for \`wrangler dev\` only: before \`wrangler deploy\`,
set new ones with \`wrangler secret put\` and rename the queues in wrangler.toml and
src/index.ts (queue names are unique per Cloudflare account).
`;
}
