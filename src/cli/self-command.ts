// How the person who started this process can run `waitlist` again from their own shell, for hints such
// as the first-account one `serve` prints. `waitlist` is only right when that name on their PATH is this
// very program; under `npm start` (no bin is linked for the package itself) it is `node bin/waitlist.js`.
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';

export interface SelfCommandEnv {
  /** process.argv[1]: the script node was started with. */
  script: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const real = (p: string): string | undefined => {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
};

/** True when `waitlist` on PATH (outside npm's temporary .bin directories) is this script. */
function onPath(script: string, env: NodeJS.ProcessEnv): boolean {
  const self = real(script);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    // npm run/exec put node_modules/.bin directories on PATH for the child only: not the user's shell.
    if (!dir || /[\\/]node_modules[\\/]\.bin$/.test(dir)) continue;
    const candidate = join(dir, 'waitlist');
    if (existsSync(candidate) && real(candidate) === self) return true;
  }
  return false;
}

/** The shell command that runs this program for the user who started it: `waitlist`, `npx waitlist` or `node <path>`. */
export function selfCommand({ script, env, cwd }: SelfCommandEnv): string {
  if (onPath(script, env)) return 'waitlist';
  // npx / npm exec: the package sits in npm's cache, reachable again through npx.
  if (env.npm_command === 'exec') return 'npx waitlist';
  // npm start / npm run: npm changed into the package; INIT_CWD is where the user typed the command.
  const from = env.INIT_CWD && isAbsolute(env.INIT_CWD) ? env.INIT_CWD : cwd;
  const path = relative(from, script) || script;
  return `node ${/\s/.test(path) ? JSON.stringify(path) : path}`;
}
