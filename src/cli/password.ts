// Passwords come from a hidden prompt on a TTY or from stdin with --password-stdin; never from a flag.
import { CliError, EXIT } from './main.js';

/** Reads all of stdin and strips one trailing newline. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The password from stdin (when asked) or a hidden prompt; a usage error when neither is possible. */
export async function readPassword(fromStdin: boolean, confirm = false): Promise<string> {
  if (fromStdin) return readStdin();
  if (!process.stdin.isTTY) {
    throw new CliError('no password: pass --password-stdin and pipe it in, or run on a terminal', EXIT.usage);
  }
  const { password } = await import('@inquirer/prompts');
  const first = await password({ message: 'Password:', mask: '*' });
  if (confirm) {
    const again = await password({ message: 'Repeat password:', mask: '*' });
    if (again !== first) throw new CliError('the passwords do not match', EXIT.usage);
  }
  return first;
}
