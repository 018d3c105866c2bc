// Import boundaries, checked by `npm run lint` (depcruise). The layers point one way:
// routes → core → db; CLI commands → client → HTTP; the dashboard speaks only the contract and the client.
// See docs/architecture.md.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-not-server-or-cli',
      comment: 'Domain logic (src/core) knows nothing of HTTP or the command line: it never imports src/server or src/cli.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(server|cli)/' },
    },
    {
      name: 'routes-no-db',
      comment: 'Routes reach the database through src/core; from src/db they may import types only (row shapes, Store).',
      severity: 'error',
      from: { path: '^src/server/routes/' },
      to: { path: '^src/db/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-only-contract-and-client',
      comment: 'The dashboard (web/) imports from src only src/contract and src/client: the same wire as every other client.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/(contract|client)/' },
    },
    {
      name: 'contract-and-client-stand-alone',
      comment: 'src/contract and src/client run in the browser too: they never import the server, core, db or cli.',
      severity: 'error',
      from: { path: '^src/(contract|client)/' },
      to: { path: '^src/(server|core|db|cli)/' },
    },
    {
      name: 'db-below-everything',
      comment: 'src/db is the bottom layer: it never imports core, server or cli.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(core|server|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.check.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    skipAnalysisNotInRules: true,
  },
};
