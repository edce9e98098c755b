#!/usr/bin/env node
/**
 * The `transitkit` command (package.json `bin`): `transitkit server --dev`,
 * the client commands `transitkit encrypt|decrypt --key NAME` that stream
 * stdin (or `--in`) through a server to stdout (or `--out`), stream-command.ts,
 * and `transitkit inspect [FILE...]`, which reads envelope headers locally
 * (inspect-command.ts).
 *
 * SIGTERM and SIGINT drain in-flight requests, close storage and exit 0; a
 * second signal exits at once. Usage errors exit 2 (so does no command at
 * all, after the help), start-up failures 1. Options the command line leaves
 * out come from `TRANSITKIT_<OPTION>` variables (args.ts `applyEnv`).
 * No top-level await, so the same source also builds as CommonJS.
 * @module
 */
import { version } from '../../package.json';
import { helpText, parseArgs, UsageError } from './args.js';
import { runInspect } from './inspect-command.js';
import { startServer } from './server.js';
import { runStreamCommand } from './stream-command.js';

async function main(argv: readonly string[]): Promise<void> {
  const command = parseArgs(argv, process.env);
  if (command.kind === 'help') {
    process.stdout.write(helpText());
    return;
  }
  if (command.kind === 'version') {
    process.stdout.write(`transitkit ${version}\n`);
    return;
  }
  if (command.kind === 'inspect') {
    const { stdin, stdout, stderr } = process;
    process.exitCode = await runInspect(command.files, { stdin, stdout, stderr });
    return;
  }
  if (command.kind === 'stream') {
    const { stdin, stdout, stderr } = process;
    await runStreamCommand(command.args, { stdin, stdout, stderr });
    return;
  }
  // A closed stdout (`transitkit server | head`) must not crash the server
  // mid-request: its lines are for a reader that has gone, and an audit
  // device on stdout sees the failure through its own write callbacks.
  process.stdout.on('error', () => undefined);
  const running = await startServer(
    command.args,
    (line) => process.stdout.write(`${line}\n`),
    version,
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`==> ${signal}: draining in-flight requests\n`);
    running.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('transitkit: error while shutting down:', e);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(`transitkit: ${e.message}\n\n${helpText()}`);
    process.exit(2);
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`transitkit: ${message}\n`);
  process.exit(1);
});
